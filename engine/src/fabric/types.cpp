// Text forms and timer tables of the fabric's plain values.
#include <cmath>
#include <cstdio>

#include <smcr/fabric_types.h>

namespace smcr::fabric {

std::string formatGid(const Gid& gid) {
    std::string text;
    char group[8];
    for (size_t i = 0; i < gid.size(); i += 2) {
        std::snprintf(group, sizeof group, "%s%02x%02x", i == 0 ? "" : ":", gid[i], gid[i + 1]);
        text += group;
    }
    return text;
}

std::string formatMac(const Mac& mac) {
    char text[24];
    std::snprintf(text, sizeof text, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
    return text;
}

const char* gidTypeName(GidType type) {
    switch (type) {
        case GidType::invalid:
            return "unknown";
        case GidType::ib:
            return "IB";
        case GidType::roceV1:
            return "RoCE v1";
        case GidType::roceV2:
            return "RoCE v2";
    }
    return "unknown";
}

const char* qpStateName(QpState state) {
    switch (state) {
        case QpState::reset:
            return "RESET";
        case QpState::init:
            return "INIT";
        case QpState::rtr:
            return "RTR";
        case QpState::rts:
            return "RTS";
        case QpState::error:
            return "ERR";
    }
    return "?";
}

const char* wcStatusName(WcStatus status) {
    // Spelled like ibv_wc_status_str() so logs match verbs tooling.
    static const char* const kNames[] = {"success",
                                         "local length error",
                                         "local QP operation error",
                                         "local EE context operation error",
                                         "local protection error",
                                         "Work Request Flushed Error",
                                         "memory management operation error",
                                         "bad response error",
                                         "local access error",
                                         "remote invalid request error",
                                         "remote access error",
                                         "remote operation error",
                                         "transport retry counter exceeded",
                                         "RNR retry counter exceeded",
                                         "local RDD violation error",
                                         "remote invalid RD request",
                                         "aborted error",
                                         "invalid EE context number",
                                         "invalid EE context state",
                                         "fatal error",
                                         "response timeout error",
                                         "general error"};
    const auto index = static_cast<size_t>(status);
    return index < std::size(kNames) ? kNames[index] : "unknown";
}

double rnrTimerMs(uint8_t code) {
    // IBA table 45 (rxe_comp.c rnrnak_usec), in milliseconds; code 0 is the longest.
    static const double kMs[32] = {655.36, 0.01,  0.02,  0.03,  0.04,  0.06,   0.08,   0.12,   0.16,   0.24,  0.32,
                                   0.48,   0.64,  0.96,  1.28,  1.92,  2.56,   3.84,   5.12,   7.68,   10.24, 15.36,
                                   20.48,  30.72, 40.96, 61.44, 81.92, 122.88, 163.84, 245.76, 327.68, 491.52};
    return kMs[code & 31];
}

double ackTimeoutUs(uint8_t timeout) {
    if (timeout == 0) return 0;  // infinite
    return 4.096 * std::ldexp(1.0, timeout & 31);
}

}  // namespace smcr::fabric
