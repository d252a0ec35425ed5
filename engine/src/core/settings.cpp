#include <smcr/settings.h>

#include <cctype>
#include <cstdlib>
#include <optional>

namespace smcr {

namespace {

constexpr uint64_t kKiB = 1024;

// One line per setting. Scopes follow where the value is read: buffer sizes
// when a connection is made, WR counts and the TEST_LINK time when a link
// group is made, waits and policies on every use.
const SettingInfo kSettings[] = {
    {"autocorking_size", SettingId::autocorkingSize, SettingScope::immediate, 64 * kKiB, 0, 1u << 30,
     "autocorking: while a CDC is outstanding, small sends wait for its completion or until min(this, sndbuf/2) "
     "bytes are corked; 0 = off"},
    {"wmem", SettingId::wmem, SettingScope::newConnections, 64 * kKiB, 16 * kKiB, 512 * kKiB,
     "send buffer bytes per connection (rounded up to 16 KiB << n)"},
    {"rmem", SettingId::rmem, SettingScope::newConnections, 64 * kKiB, 16 * kKiB, 512 * kKiB,
     "RMB bytes per connection (rounded up to 16 KiB << n)"},
    {"smcr_max_conns_per_lgr", SettingId::maxConnsPerLgr, SettingScope::newLinkGroups, 255, 16, 255,
     "connections per link group"},
    {"smcr_max_links_per_lgr", SettingId::maxLinksPerLgr, SettingScope::newLinkGroups, 2, 1, 2,
     "links per link group (one port here: a second link is rejected)"},
    {"smcr_testlink_time", SettingId::testlinkTimeS, SettingScope::newLinkGroups, 30, 0, 86400,
     "seconds of receive silence before TEST_LINK; 0 = off"},
    {"smcr_max_send_wr", SettingId::maxSendWr, SettingScope::newLinkGroups, 16, 2, 2048,
     "CDC/LLC send slots per link (the QP gets 3x for the RDMA WRITEs)"},
    {"smcr_max_recv_wr", SettingId::maxRecvWr, SettingScope::newLinkGroups, 48, 2, 2048,
     "receive WQEs per link"},
    {"limit_smc_hs", SettingId::limitSmcHs, SettingScope::newConnections, 0, 0, 1,
     "handshake limitation: while the listener's handshake queue is congested (a handshake already waits for "
     "the worker), new SMC clients are declined at once and carry on over TCP"},
    {"lab.busy_poll_us", SettingId::busyPollUs, SettingScope::immediate, 50, 0, 10000000,
     "microseconds a waiting thread polls the CQs before it arms them and sleeps"},
    {"lab.clc_wait_ms", SettingId::clcWaitMs, SettingScope::newConnections, 6000, 10, 600000,
     "wait for a CLC message (kernel CLC_WAIT_TIME 6 s); also the client's fallback timeout"},
    {"lab.llc_wait_ms", SettingId::llcWaitMs, SettingScope::newConnections, 2000, 10, 600000,
     "wait for an LLC response (kernel SMC_LLC_WAIT_TIME 2 s)"},
    {"lab.clc_detect_ms", SettingId::clcDetectMs, SettingScope::newConnections, 250, 1, 60000,
     "listener: wait this long for a CLC Proposal before treating the client as plain TCP"},
    {"lab.lgr_linger_ms", SettingId::lgrLingerMs, SettingScope::immediate, 600000, 0, 86400000,
     "an unused link group is freed after this (client side 10 s later, as the kernel)"},
    {"lab.close_drain_ms", SettingId::closeDrainMs, SettingScope::immediate, 2000, 0, 600000,
     "shutdown/close wait for unsent data to leave (kernel SMC_MAX_STREAM_WAIT_TIMEOUT 2 s)"},
    {"lab.wnd_update_limit", SettingId::wndUpdateLimit, SettingScope::immediate, 0, 0, 1,
     "window-update limit: 0/max = max(rmbe/10, SOCK_MIN_SNDBUF/2) (Linux >= 2022), 1/min = min()"},
    // RQ credits (seed 004): negotiated per link in CLC Accept/Confirm byte 51,
    // on only when both ends offer; a peer without them sees reserved zeros.
    {"lab.rq_credits", SettingId::rqCredits, SettingScope::newLinkGroups, 0, 0, 1,
     "EXPERIMENTAL receive-queue credits (RQ credits RFC): a SEND goes only with a peer receive WQE for it, "
     "so no RNR; negotiated per new link, on only when both ends offer"},
    {"lab.rx_backlog", SettingId::rxBacklog, SettingScope::immediate, 0, 0, 1,
     "refill each receive WQE at once and process CDCs from a backlog after the completion batch "
     "(seed 004's alternative; no protocol change)"},
    // Lab knob, no kernel counterpart: reproduces seed 004's slow receiver.
    {"lab.rx_repost_delay_us", SettingId::rxRepostDelayUs, SettingScope::immediate, 0, 0, 100000,
     "lab knob: a CDC is handled, and its receive WQE refilled, this many microseconds after its "
     "completion (a late rx tasklet: it handles a CDC, then refills); time, not CPU; a slow receiver "
     "that lets the peer meet RNR NAKs (with lab.rx_backlog the WQE is refilled at once)"},
    // On by default: the fast path costs an SMC client nothing (it still sees
    // its Proposal handled by the worker) and spares every plain TCP client
    // the worker hop (seed 003: 98.7% of TCP instead of 78.5%).
    {"lab.fast_fallback", SettingId::fastFallback, SettingScope::newConnections, 1, 0, 1,
     "listener: clients whose first bytes are not a CLC Proposal go straight to the accept queue as TCP, "
     "never through the SMC handshake worker"},
    // The datapath series (seeds 000/002): each optimisation can be turned
    // back to its pre-2022 behaviour while traffic runs.
    {"lab.cork_timer_ms", SettingId::corkTimerMs, SettingScope::immediate, 0, 0, 60000,
     "0 = TCP_CORK/MSG_MORE data waits until uncork or a full sndbuf (Linux >= 2022); > 0 = the old delayed-work "
     "cork: corked data is pushed by the background thread after this many ms, uncork and sendfile pieces too"},
    {"lab.cq_mode", SettingId::cqMode, SettingScope::immediate, 0, 0, 1,
     "completion handling: drain_then_arm (poll in batches until a short one, arm with missed-event reporting, "
     "poll again if missed) or arm_first (arm right away, then poll: the pre-2022 order)"},
    {"lab.tx_defer_to_owner", SettingId::txDeferToOwner, SettingScope::immediate, 1, 0, 1,
     "on: a completion or CDC that would push data while an application thread is inside the socket leaves "
     "the push to that thread (the kernel's release_cb); off: pushes in completion context"},
    // The kernel's SMC_WR_TX_WAIT_FREE_SLOT_TIME (10 s): a send slot whose
    // completion never comes back declares the link down (tx_watchdog.h).
    {"lab.tx_completion_timeout_ms", SettingId::txCompletionTimeoutMs, SettingScope::immediate, 10000, 0, 600000,
     "a link with sends outstanding and no send completion for this long is down: its connections fail over "
     "to the other link, or are aborted when it was the last (kernel SMC_WR_TX_WAIT_FREE_SLOT_TIME 10 s); 0 = off"},
    // The kernel adds a link again when a port comes back (port event); the
    // sim's ports never go away, so the lab retries after a delay.
    {"lab.link_readd_ms", SettingId::linkReaddMs, SettingScope::immediate, 2000, 0, 600000,
     "after a link of a two-link group is lost, the server runs ADD_LINK again this many ms later while another "
     "port is active (once per loss); 0 = never"},
};

std::optional<uint64_t> parseNumber(const std::string& text) {
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (end == text.c_str()) return std::nullopt;
    std::string suffix(end);
    uint64_t mult = 1;
    if (suffix == "K" || suffix == "k") mult = kKiB;
    else if (suffix == "M" || suffix == "m") mult = kKiB * kKiB;
    else if (!suffix.empty()) return std::nullopt;
    return value * mult;
}

const SettingInfo* findSetting(const std::string& name) {
    for (const SettingInfo& info : kSettings) {
        if (name == info.name) return &info;
        // Accept the kernel's path form too: net.smc.wmem.
        if (name.rfind("net.smc.", 0) == 0 && name.substr(8) == info.name) return &info;
    }
    return nullptr;
}

}  // namespace

const char* settingScopeName(SettingScope scope) {
    switch (scope) {
        case SettingScope::immediate: return "immediate";
        case SettingScope::newConnections: return "new connections";
        case SettingScope::newLinkGroups: return "new link groups";
        case SettingScope::invalid: break;
    }
    return "invalid";
}

std::span<const SettingInfo> settingTable() { return kSettings; }

Settings::Settings() {
    for (const SettingInfo& info : kSettings) m_values[static_cast<size_t>(info.id)].store(info.defaultValue);
}

Status Settings::set(SettingId id, uint64_t value) {
    for (const SettingInfo& info : kSettings) {
        if (info.id != id) continue;
        if (value < info.minValue || value > info.maxValue) {
            return fail(Errc::invalidArgument, std::string(info.name) + ": " + std::to_string(value) +
                                                   " outside " + std::to_string(info.minValue) + ".." +
                                                   std::to_string(info.maxValue));
        }
        m_values[static_cast<size_t>(id)].store(value, std::memory_order_relaxed);
        return {};
    }
    return fail(Errc::invalidArgument, "unknown setting id");
}

Status Settings::set(const std::string& name, const std::string& value) {
    if (name == "lab.fabric") {
        if (value.empty()) return fail(Errc::invalidArgument, "lab.fabric: empty");
        std::lock_guard lock(m_textMutex);
        m_fabric = value;
        return {};
    }
    if (name == "lab.link") {
        if (value != "ideal" && value != "cx4-25g") {
            return fail(Errc::invalidArgument, "lab.link: '" + value + "' is not ideal or cx4-25g");
        }
        std::lock_guard lock(m_textMutex);
        m_link = value;
        return {};
    }
    const SettingInfo* info = findSetting(name);
    if (info == nullptr) return fail(Errc::notFound, "unknown setting '" + name + "'");
    std::optional<uint64_t> number;
    if (info->id == SettingId::wndUpdateLimit && (value == "max" || value == "min")) {
        number = value == "max" ? 0 : 1;
    } else if (info->id == SettingId::cqMode && (value == "drain_then_arm" || value == "arm_first")) {
        number = value == "drain_then_arm" ? 0 : 1;
    } else if (value == "on" || value == "off" || value == "true" || value == "false") {
        number = value == "on" || value == "true" ? 1 : 0;
    } else {
        number = parseNumber(value);
    }
    if (!number && info->id == SettingId::cqMode) {
        return fail(Errc::invalidArgument, name + ": '" + value + "' is not drain_then_arm or arm_first");
    }
    if (!number) return fail(Errc::invalidArgument, name + ": '" + value + "' is not a number");
    return set(info->id, *number);
}

Result<std::string> Settings::get(const std::string& name) const {
    if (name == "lab.fabric") return fabric();
    if (name == "lab.link") return linkModel();
    const SettingInfo* info = findSetting(name);
    if (info == nullptr) return fail(Errc::notFound, "unknown setting '" + name + "'");
    const uint64_t v = get(info->id);
    if (info->id == SettingId::wndUpdateLimit) return std::string(v == 0 ? "max" : "min");
    if (info->id == SettingId::cqMode) return std::string(v == 0 ? "drain_then_arm" : "arm_first");
    return std::to_string(v);
}

std::vector<SettingValue> Settings::list() const {
    std::vector<SettingValue> out;
    for (const SettingInfo& info : kSettings) {
        out.push_back({info.name, get(std::string(info.name)).valueOr(""), info.scope, info.help});
    }
    out.push_back({"lab.fabric", fabric(), SettingScope::newLinkGroups, "fabric backend: sim | verbs[:device]"});
    out.push_back({"lab.link", linkModel(), SettingScope::newLinkGroups, "sim link model: ideal | cx4-25g"});
    return out;
}

std::string Settings::fabric() const {
    std::lock_guard lock(m_textMutex);
    return m_fabric;
}

std::string Settings::linkModel() const {
    std::lock_guard lock(m_textMutex);
    return m_link;
}

}  // namespace smcr
