#include "kernel_smc_counters.h"

#include <memory>
#include <string>
#include <vector>

#include "smc_netlink.h"

namespace smclab::transports {

namespace {

struct Snapshot {
    smcnl::KernelStats stats;
    std::vector<smcnl::FallbackCount> fallbacks;
    bool valid = false;
};

Snapshot take() {
    Snapshot s;
    auto stats = smcnl::readStats();
    auto fallbacks = smcnl::readFallbacks();
    if (!stats || !fallbacks) return s;
    s.stats = *stats;
    s.fallbacks = *fallbacks;
    s.valid = true;
    return s;
}

uint64_t delta(uint64_t now, uint64_t base) {
    return now >= base ? now - base : 0;
}

void addTech(const char* tech, const smcnl::TechStats& now, const smcnl::TechStats& base, Counters* out) {
    const std::string p = std::string("kernel.") + tech + ".";
    out->push_back({p + "clnt_v1_succ_cnt", delta(now.clientV1Success, base.clientV1Success)});
    out->push_back({p + "clnt_v2_succ_cnt", delta(now.clientV2Success, base.clientV2Success)});
    out->push_back({p + "srv_v1_succ_cnt", delta(now.serverV1Success, base.serverV1Success)});
    out->push_back({p + "srv_v2_succ_cnt", delta(now.serverV2Success, base.serverV2Success)});
    out->push_back({p + "rx_bytes", delta(now.rxBytes, base.rxBytes)});
    out->push_back({p + "tx_bytes", delta(now.txBytes, base.txBytes)});
    out->push_back({p + "rx_cnt", delta(now.rxCalls, base.rxCalls)});
    out->push_back({p + "tx_cnt", delta(now.txCalls, base.txCalls)});
    out->push_back({p + "cork_cnt", delta(now.corkCount, base.corkCount)});
    out->push_back({p + "ndly_cnt", delta(now.nodelayCount, base.nodelayCount)});
    out->push_back({p + "sendpage_cnt", delta(now.sendpageCount, base.sendpageCount)});
    out->push_back({p + "splice_cnt", delta(now.spliceCount, base.spliceCount)});
    out->push_back({p + "rmb_full_peer_cnt", delta(now.rmbFullPeer, base.rmbFullPeer)});
    out->push_back({p + "rmb_full_cnt", delta(now.rmbFull, base.rmbFull)});
}

uint64_t baseCount(const std::vector<smcnl::FallbackCount>& base, const smcnl::FallbackCount& f) {
    for (const smcnl::FallbackCount& b : base)
        if (b.server == f.server && b.reason == f.reason) return b.count;
    return 0;
}

}  // namespace

std::function<Counters()> kernelSmcCounters() {
    auto base = std::make_shared<const Snapshot>(take());
    return [base]() -> Counters {
        if (!base->valid) return {};
        const Snapshot now = take();
        if (!now.valid) return {};
        Counters out;
        addTech("smcr", now.stats.smcr, base->stats.smcr, &out);
        addTech("smcd", now.stats.smcd, base->stats.smcd, &out);
        out.push_back(
            {"kernel.clnt_hs_err_cnt", delta(now.stats.clientHandshakeErrors, base->stats.clientHandshakeErrors)});
        out.push_back(
            {"kernel.srv_hs_err_cnt", delta(now.stats.serverHandshakeErrors, base->stats.serverHandshakeErrors)});
        for (const smcnl::FallbackCount& f : now.fallbacks) {
            const uint64_t d = delta(f.count, baseCount(base->fallbacks, f));
            if (d == 0) continue;
            std::string name = smcnl::fallbackReasonName(f.reason);
            if (name.empty()) name = smcnl::describeFallbackReason(f.reason);
            out.push_back({std::string("kernel.fallback.") + (f.server ? "server." : "client.") + name, d});
        }
        return out;
    };
}

}  // namespace smclab::transports
