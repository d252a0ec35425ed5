#include <cctype>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string_view>

#include <smcr/settings.h>

namespace smcr {

namespace {

constexpr uint64_t kKiB = 1024;

// Row makers: a row says only what its type needs.
constexpr SettingInfo number(const char* name, SettingId id, SettingScope scope, uint64_t defaultValue,
                             uint64_t minValue, uint64_t maxValue, const char* help) {
    return {name, id, scope, defaultValue, minValue, maxValue, help, SettingType::number, {}, ""};
}

constexpr SettingInfo flag(const char* name, SettingId id, SettingScope scope, bool on, const char* help) {
    return {name, id, scope, on ? 1u : 0u, 0, 1, help, SettingType::flag, {}, ""};
}

// The first name is the default (value 0).
constexpr SettingInfo choice(const char* name, SettingId id, SettingScope scope, std::span<const char* const> names,
                             const char* help) {
    return {name, id, scope, 0, 0, names.size() - 1, help, SettingType::choice, names, ""};
}

// `names` empty: any non-empty text.
constexpr SettingInfo text(const char* name, SettingScope scope, const char* defaultText,
                           std::span<const char* const> names, const char* help) {
    return {name, SettingId::count_, scope, 0, 0, 0, help, SettingType::text, names, defaultText};
}

constexpr const char* kWndUpdateLimits[] = {"max", "min"};
constexpr const char* kCqModes[] = {"drain_then_arm", "arm_first"};
constexpr const char* kWaitSleeps[] = {"word", "fds"};
constexpr const char* kLinkModels[] = {"ideal", "cx4-25g", "cx4lx-vf"};

// One row per setting: the numeric ones in SettingId order, then the text
// ones. Scopes follow where the value is read: buffer sizes when a
// connection is made, WR counts and the TEST_LINK time when a link group is
// made, waits and policies on every use.
constexpr SettingInfo kSettings[] = {
    number("autocorking_size", SettingId::autocorkingSize, SettingScope::immediate, 64 * kKiB, 0, 1u << 30,
           "autocorking: while a CDC is outstanding, small sends wait for its completion or until min(this, "
           "sndbuf/2) bytes are corked; 0 = off"),
    number("wmem", SettingId::wmem, SettingScope::newConnections, 64 * kKiB, 16 * kKiB, 512 * kKiB,
           "send buffer bytes per connection (rounded up to 16 KiB << n)"),
    number("rmem", SettingId::rmem, SettingScope::newConnections, 64 * kKiB, 16 * kKiB, 512 * kKiB,
           "RMB bytes per connection (rounded up to 16 KiB << n)"),
    number("smcr_max_conns_per_lgr", SettingId::maxConnsPerLgr, SettingScope::newLinkGroups, 255, 16, 255,
           "connections per link group"),
    number("smcr_max_links_per_lgr", SettingId::maxLinksPerLgr, SettingScope::newLinkGroups, 2, 1, 2,
           "links per link group (one port here: a second link is rejected)"),
    number("smcr_testlink_time", SettingId::testlinkTimeS, SettingScope::newLinkGroups, 30, 0, 86400,
           "seconds of receive silence before TEST_LINK; 0 = off"),
    number("smcr_max_send_wr", SettingId::maxSendWr, SettingScope::newLinkGroups, 16, 2, 2048,
           "CDC/LLC send slots per link (the QP gets 3x for the RDMA WRITEs)"),
    number("smcr_max_recv_wr", SettingId::maxRecvWr, SettingScope::newLinkGroups, 48, 2, 2048, "receive WQEs per link"),
    flag("limit_smc_hs", SettingId::limitSmcHs, SettingScope::newConnections, false,
         "handshake limitation: while the listener's handshake queue is congested (a handshake already waits for "
         "the worker), new SMC clients are declined at once and carry on over TCP"),
    number("lab.busy_poll_us", SettingId::busyPollUs, SettingScope::immediate, 50, 0, 10000000,
           "microseconds a waiting thread polls the CQs before it arms them and sleeps"),
    number("lab.clc_wait_ms", SettingId::clcWaitMs, SettingScope::newConnections, 6000, 10, 600000,
           "wait for a CLC message (kernel CLC_WAIT_TIME 6 s); also the client's fallback timeout"),
    number("lab.llc_wait_ms", SettingId::llcWaitMs, SettingScope::newConnections, 2000, 10, 600000,
           "wait for an LLC response (kernel SMC_LLC_WAIT_TIME 2 s)"),
    number("lab.clc_detect_ms", SettingId::clcDetectMs, SettingScope::newConnections, 250, 1, 60000,
           "listener: wait this long for a CLC Proposal before treating the client as plain TCP"),
    number("lab.lgr_linger_ms", SettingId::lgrLingerMs, SettingScope::immediate, 600000, 0, 86400000,
           "an unused link group is freed after this (client side 10 s later, as the kernel)"),
    number("lab.close_drain_ms", SettingId::closeDrainMs, SettingScope::immediate, 2000, 0, 600000,
           "shutdown/close wait for unsent data to leave (kernel SMC_MAX_STREAM_WAIT_TIMEOUT 2 s)"),
    choice("lab.wnd_update_limit", SettingId::wndUpdateLimit, SettingScope::immediate, kWndUpdateLimits,
           "window-update limit: 0/max = max(rmbe/10, SOCK_MIN_SNDBUF/2) (Linux >= 2022), 1/min = min()"),
    // RQ credits (seed 004): negotiated per link in CLC Accept/Confirm byte 51,
    // on only when both ends offer; a peer without them sees reserved zeros.
    flag("lab.rq_credits", SettingId::rqCredits, SettingScope::newLinkGroups, false,
         "EXPERIMENTAL receive-queue credits (RQ credits RFC): a SEND goes only with a peer receive WQE for it, "
         "so no RNR; negotiated per new link, on only when both ends offer"),
    flag("lab.rx_backlog", SettingId::rxBacklog, SettingScope::immediate, false,
         "refill each receive WQE at once and process CDCs from a backlog after the completion batch "
         "(seed 004's alternative; no protocol change)"),
    // Lab knob, no kernel counterpart: reproduces seed 004's slow receiver.
    number("lab.rx_repost_delay_us", SettingId::rxRepostDelayUs, SettingScope::immediate, 0, 0, 100000,
           "lab knob: a CDC is handled, and its receive WQE refilled, this many microseconds after its "
           "completion (a late rx tasklet: it handles a CDC, then refills); time, not CPU; a slow receiver "
           "that lets the peer meet RNR NAKs (with lab.rx_backlog the WQE is refilled at once)"),
    // On by default: the fast path costs an SMC client nothing (it still sees
    // its Proposal handled by the worker) and spares every plain TCP client
    // the worker hop (seed 003: 98.7% of TCP instead of 78.5%).
    flag("lab.fast_fallback", SettingId::fastFallback, SettingScope::newConnections, true,
         "listener: clients whose first bytes are not a CLC Proposal go straight to the accept queue as TCP, "
         "never through the SMC handshake worker"),
    // The datapath series (seeds 000/002): each optimisation can be turned
    // back to its pre-2022 behaviour while traffic runs.
    number("lab.cork_timer_ms", SettingId::corkTimerMs, SettingScope::immediate, 0, 0, 60000,
           "0 = TCP_CORK/MSG_MORE data waits until uncork or a full sndbuf (Linux >= 2022); > 0 = the old "
           "delayed-work cork: corked data is pushed by the background thread after this many ms, uncork and "
           "sendfile pieces too"),
    choice("lab.cq_mode", SettingId::cqMode, SettingScope::immediate, kCqModes,
           "completion handling: drain_then_arm (poll in batches until a short one, arm with missed-event "
           "reporting, poll again if missed) or arm_first (arm right away, then poll: the pre-2022 order)"),
    flag("lab.tx_defer_to_owner", SettingId::txDeferToOwner, SettingScope::immediate, true,
         "on: a completion or CDC that would push data while an application thread is inside the socket leaves "
         "the push to that thread (the kernel's release_cb); off: pushes in completion context"),
    // The kernel's SMC_WR_TX_WAIT_FREE_SLOT_TIME (10 s): a send slot whose
    // completion never comes back declares the link down (tx_watchdog.h).
    number("lab.tx_completion_timeout_ms", SettingId::txCompletionTimeoutMs, SettingScope::immediate, 10000, 0, 600000,
           "a link with sends outstanding and no send completion for this long is down: its connections fail "
           "over to the other link, or are aborted when it was the last (kernel SMC_WR_TX_WAIT_FREE_SLOT_TIME "
           "10 s); 0 = off"),
    // The kernel adds a link again when a port comes back (port event); the
    // sim's ports never go away, so the lab retries after a delay.
    number("lab.link_readd_ms", SettingId::linkReaddMs, SettingScope::immediate, 2000, 0, 600000,
           "after a link of a two-link group is lost, the server runs ADD_LINK again this many ms later while "
           "another port is active (once per loss); 0 = never"),
    flag("lab.tx_pieces", SettingId::txPieces, SettingScope::immediate, false,
         "busy polling (lab.busy_poll_us > 0), a send larger than a quarter of the sndbuf is copied and pushed in "
         "quarter-sndbuf pieces, so the wire carries one piece while the next is copied; off, or waiting like the "
         "kernel, one copy takes all the free sndbuf, as smc_tx_sendmsg (the default until measured)"),
    number("lab.window_spin_us", SettingId::windowSpinUs, SettingScope::immediate, 20, 0, 1000000,
           "a send whose bytes wait only for the peer's window polls for the window update this long before it "
           "sleeps (at least lab.busy_poll_us), and a recv that just released such a sender polls as long for the "
           "bytes it lets go, read in quarter-RMB pieces meanwhile: the user-space stand-in for the kernel's "
           "softirq, which pushes on the peer's CDC without waking the writer; one wake-up's cost on the lab's "
           "VMs; 0 = sleep at once, announce once per read"),
    choice("lab.wait_sleep", SettingId::waitSleep, SettingScope::immediate, kWaitSleeps,
           "how a waiting thread sleeps once it has armed the CQs: word (on the completion channel's futex word "
           "where the fabric has one, the sim: the wake-up of a blocking read, for a thread that waits for "
           "nothing but the engine) or fds (ppoll over the channel's fds and the thread's eventfd, as before)"),
    // Text settings (not in SettingId): read when a link group is made.
    text("lab.fabric", SettingScope::newLinkGroups, "sim", {}, "fabric backend: sim | verbs[:device]"),
    text("lab.link", SettingScope::newLinkGroups, "ideal", kLinkModels, "sim link model: ideal | cx4-25g | cx4lx-vf"),
    text("lab.ueid", SettingScope::newConnections, "", {},
         "SMC-Rv2 user-defined EID (up to 32 of A-Z 0-9 . -, the kernel's smcr ueid): set, clients propose "
         "SMC-Rv2 with it (the only SMC-R soft-RoCE carries) and the verbs fabric takes an IPv4-mapped RoCE v2 "
         "GID; empty, SMC-R v1"),
};

constexpr size_t kNumericCount = static_cast<size_t>(SettingId::count_);

// Row i of the numeric part is SettingId i, so an id finds its row at once;
// text rows follow with no id.
constexpr bool rowsInOrder() {
    for (size_t i = 0; i < std::size(kSettings); ++i) {
        const bool numeric = i < kNumericCount;
        if (numeric != (kSettings[i].type != SettingType::text)) return false;
        if (numeric ? kSettings[i].id != static_cast<SettingId>(i) : kSettings[i].id != SettingId::count_) return false;
    }
    return true;
}
static_assert(std::size(kSettings) >= kNumericCount && rowsInOrder(),
              "kSettings: one row per SettingId, in SettingId order, then the text settings");

// The text settings the engine reads by accessor.
constexpr size_t kFabricRow = kNumericCount;
constexpr size_t kLinkRow = kNumericCount + 1;
constexpr size_t kUeidRow = kNumericCount + 2;
static_assert(std::string_view(kSettings[kFabricRow].name) == "lab.fabric" &&
              std::string_view(kSettings[kLinkRow].name) == "lab.link" &&
              std::string_view(kSettings[kUeidRow].name) == "lab.ueid");

std::optional<uint64_t> parseNumber(const std::string& text) {
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (end == text.c_str()) return std::nullopt;
    std::string suffix(end);
    uint64_t mult = 1;
    if (suffix == "K" || suffix == "k")
        mult = kKiB;
    else if (suffix == "M" || suffix == "m")
        mult = kKiB * kKiB;
    else if (!suffix.empty())
        return std::nullopt;
    return value * mult;
}

// "a or b", "a, b or c".
std::string oneOf(std::span<const char* const> names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
        out += names[i];
    }
    return out;
}

// A numeric setting's value from text: its own names, then on|off words,
// then a number. Errors name the setting as the caller spelled it.
Result<uint64_t> parseValue(const SettingInfo& info, const std::string& name, const std::string& value) {
    if (info.type == SettingType::choice) {
        for (size_t i = 0; i < info.names.size(); ++i) {
            if (value == info.names[i]) return uint64_t{i};
        }
    }
    if (value == "on" || value == "true") return uint64_t{1};
    if (value == "off" || value == "false") return uint64_t{0};
    if (std::optional<uint64_t> number = parseNumber(value)) return *number;
    if (info.type == SettingType::choice) {
        return fail(Errc::invalidArgument, name + ": '" + value + "' is not " + oneOf(info.names));
    }
    return fail(Errc::invalidArgument, name + ": '" + value + "' is not a number");
}

Status checkText(const SettingInfo& info, const std::string& value) {
    if (info.names.empty()) {
        if (value.empty()) return fail(Errc::invalidArgument, std::string(info.name) + ": empty");
        return {};
    }
    for (const char* allowed : info.names) {
        if (value == allowed) return {};
    }
    return fail(Errc::invalidArgument, std::string(info.name) + ": '" + value + "' is not " + oneOf(info.names));
}

const SettingInfo* findSetting(const std::string& name) {
    for (const SettingInfo& info : kSettings) {
        if (name == info.name) return &info;
        // Accept the kernel's path form too: net.smc.wmem.
        if (name.rfind("net.smc.", 0) == 0 && name.substr(8) == info.name) return &info;
    }
    return nullptr;
}

size_t rowOf(const SettingInfo& info) {
    return static_cast<size_t>(&info - kSettings);
}

}  // namespace

const char* settingScopeName(SettingScope scope) {
    switch (scope) {
        case SettingScope::immediate:
            return "immediate";
        case SettingScope::newConnections:
            return "new connections";
        case SettingScope::newLinkGroups:
            return "new link groups";
        case SettingScope::invalid:
            break;
    }
    return "invalid";
}

const char* settingTypeName(SettingType type) {
    switch (type) {
        case SettingType::number:
            return "number";
        case SettingType::flag:
            return "flag";
        case SettingType::choice:
            return "choice";
        case SettingType::text:
            return "text";
        case SettingType::invalid:
            break;
    }
    return "invalid";
}

std::span<const SettingInfo> settingTable() {
    return std::span<const SettingInfo>(kSettings).first(kNumericCount);
}

std::span<const SettingInfo> allSettings() {
    return kSettings;
}

std::string settingValuesText(const SettingInfo& info) {
    switch (info.type) {
        case SettingType::flag:
            return "on|off";
        case SettingType::choice:
        case SettingType::text: {
            if (info.names.empty()) return "text";
            std::string out;
            for (const char* n : info.names) out += (out.empty() ? "" : "|") + std::string(n);
            return out;
        }
        case SettingType::number:
        case SettingType::invalid:
            break;
    }
    return std::to_string(info.minValue) + ".." + std::to_string(info.maxValue);
}

Settings::Settings() : m_text(std::size(kSettings)) {
    for (const SettingInfo& info : kSettings) {
        if (info.type == SettingType::text)
            m_text[rowOf(info)] = info.defaultText;
        else
            m_values[static_cast<size_t>(info.id)].store(info.defaultValue);
    }
}

Status Settings::set(SettingId id, uint64_t value) {
    if (static_cast<size_t>(id) >= kNumericCount) return fail(Errc::invalidArgument, "unknown setting id");
    const SettingInfo& info = kSettings[static_cast<size_t>(id)];
    if (value < info.minValue || value > info.maxValue) {
        return fail(Errc::invalidArgument, std::string(info.name) + ": " + std::to_string(value) + " outside " +
                                               std::to_string(info.minValue) + ".." + std::to_string(info.maxValue));
    }
    m_values[static_cast<size_t>(id)].store(value, std::memory_order_relaxed);
    return {};
}

Status Settings::set(const std::string& name, const std::string& value) {
    const SettingInfo* info = findSetting(name);
    if (info == nullptr) return fail(Errc::notFound, "unknown setting '" + name + "'");
    if (info->type == SettingType::text) {
        if (Status ok = checkText(*info, value); !ok) return ok;
        std::lock_guard lock(m_textMutex);
        m_text[rowOf(*info)] = value;
        return {};
    }
    Result<uint64_t> number = parseValue(*info, name, value);
    if (!number) return fail(number.error());
    return set(info->id, number.value());
}

Result<std::string> Settings::get(const std::string& name) const {
    const SettingInfo* info = findSetting(name);
    if (info == nullptr) return fail(Errc::notFound, "unknown setting '" + name + "'");
    if (info->type == SettingType::text) {
        std::lock_guard lock(m_textMutex);
        return m_text[rowOf(*info)];
    }
    const uint64_t v = get(info->id);
    if (info->type == SettingType::choice && v < info->names.size()) return std::string(info->names[v]);
    return std::to_string(v);
}

std::vector<SettingValue> Settings::list() const {
    std::vector<SettingValue> out;
    for (const SettingInfo& info : kSettings) {
        out.push_back({info.name, get(std::string(info.name)).valueOr(""), info.scope, info.help});
    }
    return out;
}

std::string Settings::fabric() const {
    std::lock_guard lock(m_textMutex);
    return m_text[kFabricRow];
}

std::string Settings::linkModel() const {
    std::lock_guard lock(m_textMutex);
    return m_text[kLinkRow];
}

std::string Settings::ueid() const {
    std::lock_guard lock(m_textMutex);
    return m_text[kUeidRow];
}

}  // namespace smcr
