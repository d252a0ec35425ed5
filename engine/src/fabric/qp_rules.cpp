#include "qp_rules.h"

#include <string>

namespace smcr::fabric {

namespace {

Status invalid(const std::string& what) {
    return fail(Errc::invalidArgument, what);
}

Status needMask(QpState current, QpState target, QpAttrMask mask, QpAttrMask required, QpAttrMask optional) {
    const auto m = static_cast<uint32_t>(mask);
    const auto r = static_cast<uint32_t>(required);
    const auto o = static_cast<uint32_t>(optional);
    const std::string step = std::string(qpStateName(current)) + "->" + qpStateName(target);
    if ((m & r) != r) return invalid("modify " + step + ": required attribute missing from mask");
    if ((m & ~(r | o)) != 0) return invalid("modify " + step + ": attribute not allowed in this transition");
    return {};
}

}  // namespace

Status checkQpTransition(QpState current, const QpAttr& attr, QpAttrMask mask, uint32_t portCount) {
    const QpState target = attr.state;
    if (!hasFlag(mask, QpAttrMask::state)) return invalid("modify without a target state is not supported");
    if (target == QpState::reset || target == QpState::error) {
        return needMask(current, target, mask, QpAttrMask::state, QpAttrMask::none);
    }
    if (current == QpState::reset && target == QpState::init) {
        if (auto st = needMask(current, target, mask, kMaskResetToInit, QpAttrMask::none); !st) return st;
        if (attr.port < 1 || attr.port > portCount)
            return invalid("port " + std::to_string(attr.port) + " does not exist");
        return {};
    }
    if (current == QpState::init && target == QpState::rtr) {
        if (auto st = needMask(current, target, mask, kMaskInitToRtr, QpAttrMask::none); !st) return st;
        if (attr.pathMtu == PathMtu::invalid || attr.pathMtu > PathMtu::mtu4096) return invalid("invalid path MTU");
        if (attr.remoteQpn > kQpnMask || attr.rqPsn > kPsnMask) return invalid("QPN/PSN wider than 24 bits");
        if (attr.minRnrTimer > 31) return invalid("min_rnr_timer above 31");
        if (attr.maxDestRdAtomic > 16) return invalid("max_dest_rd_atomic above 16");
        return {};
    }
    if (current == QpState::rtr && target == QpState::rts) {
        if (auto st = needMask(current, target, mask, kMaskRtrToRts, QpAttrMask::minRnrTimer | QpAttrMask::accessFlags);
            !st) {
            return st;
        }
        if (attr.sqPsn > kPsnMask) return invalid("sq_psn wider than 24 bits");
        if (attr.timeout > 31) return invalid("timeout above 31");
        if (attr.retryCnt > 7 || attr.rnrRetry > 7) return invalid("retry_cnt and rnr_retry are 3-bit fields");
        if (attr.maxRdAtomic > 16) return invalid("max_rd_atomic above 16");
        if (hasFlag(mask, QpAttrMask::minRnrTimer) && attr.minRnrTimer > 31) return invalid("min_rnr_timer above 31");
        return {};
    }
    return invalid(std::string("invalid QP transition ") + qpStateName(current) + " -> " + qpStateName(target));
}

}  // namespace smcr::fabric
