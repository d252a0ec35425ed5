// libsmcr settings: the kernel's net.smc sysctl names plus lab knobs
// (smc-protocol.md section 6). Values live in relaxed atomics so the hot path
// reads them without locks and a running benchmark can change them; each
// setting declares when a change takes effect.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <smcr/result.h>

namespace smcr {

enum class SettingScope : uint8_t {
    invalid = 0,
    immediate,       // also running connections, on their next use
    newConnections,  // connections made afterwards
    newLinkGroups,   // link groups (QPs) made afterwards
};
const char* settingScopeName(SettingScope scope);

// Identifies a numeric setting; names in settingTable().
enum class SettingId : uint8_t {
    autocorkingSize = 0,    // autocorking_size (bytes; 0 = off): cork while a CDC is outstanding
    wmem,                   // wmem: initial sndbuf bytes (16 KiB << n, <= 512 KiB)
    rmem,                   // rmem: initial RMB bytes
    maxConnsPerLgr,         // smcr_max_conns_per_lgr (16..255)
    maxLinksPerLgr,         // smcr_max_links_per_lgr (1..2)
    testlinkTimeS,          // smcr_testlink_time (seconds; 0 = off)
    maxSendWr,              // smcr_max_send_wr (2..2048): CDC/LLC send slots per link
    maxRecvWr,              // smcr_max_recv_wr (2..2048): receive WQEs per link
    limitSmcHs,             // limit_smc_hs (0/1)
    busyPollUs,             // lab.busy_poll_us: spin before arming and blocking
    clcWaitMs,              // lab.clc_wait_ms: CLC message wait (kernel CLC_WAIT_TIME 6 s)
    llcWaitMs,              // lab.llc_wait_ms: LLC response wait (kernel SMC_LLC_WAIT_TIME 2 s)
    clcDetectMs,            // lab.clc_detect_ms: listener waits this long for a CLC Proposal
    lgrLingerMs,            // lab.lgr_linger_ms: unused link group kept before it is freed
    closeDrainMs,           // lab.close_drain_ms: shutdown/close wait for the sndbuf to drain
    wndUpdateLimit,         // lab.wnd_update_limit: 0 = max (Linux >= 2022), 1 = min (older)
    rqCredits,              // lab.rq_credits (on/off): EXPERIMENTAL RQ credit flow control (seed 004), per new link
    rxBacklog,              // lab.rx_backlog (on/off): refill receive WQEs first, process CDCs from a backlog
    rxRepostDelayUs,        // lab.rx_repost_delay_us: lab knob, CDC handling and WQE refill this late (no CPU)
    fastFallback,           // lab.fast_fallback: listener queues plain TCP clients without the handshake worker
    corkTimerMs,            // lab.cork_timer_ms: > 0 = pre-2022 delayed-work corking (push after this many ms)
    cqMode,                 // lab.cq_mode: 0 = drain_then_arm (NAPI-like), 1 = arm_first (arm after the first poll)
    txDeferToOwner,         // lab.tx_defer_to_owner (on/off): completions leave pushes to the thread inside the socket
    txCompletionTimeoutMs,  // lab.tx_completion_timeout_ms: no send completion for this long takes the link down (0 =
                            // off)
    linkReaddMs,            // lab.link_readd_ms: after a lost link the server adds one again after this long (0 = off)
    txPieces,               // lab.tx_pieces (on/off): busy polling, a large send goes in quarter-sndbuf pieces
    windowSpinUs,  // lab.window_spin_us: a sender blocked on the peer's window, and the reader that releases it, poll
                   // this long
    waitSleep,     // lab.wait_sleep: 0 = word (a futex word where the fabric has one), 1 = fds (ppoll over them)
    count_,        // number of numeric settings (not a setting)
};

// How a setting's value is spelled. Every numeric type (number, flag,
// choice) also takes on|off|true|false as 1|0 and prints as get() shows it.
enum class SettingType : uint8_t {
    invalid = 0,
    number,  // decimal, with a K or M suffix (KiB, MiB); prints as a number
    flag,    // 0..1, also on|off; prints 0 or 1
    choice,  // the names in `names` (value = index) or their numbers; prints the name
    text,    // one of `names`, or any non-empty text when `names` is empty
};
const char* settingTypeName(SettingType type);

// One row of the settings table: parsing, validation, the listing and the
// help the agent and the GUI show all read it.
struct SettingInfo {
    const char* name;  // the kernel's net.smc sysctl name, or lab.* for a lab knob
    SettingId id;      // the numeric value's slot; SettingId::count_ for text settings
    SettingScope scope;
    uint64_t defaultValue;
    uint64_t minValue;
    uint64_t maxValue;
    const char* help;
    SettingType type = SettingType::number;
    std::span<const char* const> names = {};  // choice: value i's name; text: the values allowed
    const char* defaultText = "";             // text: the default
};
// The numeric settings, in SettingId order (the listing's order too).
std::span<const SettingInfo> settingTable();
// Every setting: the numeric ones, then the text ones (lab.fabric, lab.link).
std::span<const SettingInfo> allSettings();
// What a setting takes, for help and errors: "16..255", "on|off",
// "drain_then_arm|arm_first", "ideal|cx4-25g|cx4lx-vf", "text".
std::string settingValuesText(const SettingInfo& info);

// Name/value as text, for listings and the agent.
struct SettingValue {
    std::string name;
    std::string value;
    SettingScope scope = SettingScope::invalid;
    std::string help;
};

class Settings {
public:
    Settings();

    uint64_t get(SettingId id) const { return m_values[static_cast<size_t>(id)].load(std::memory_order_relaxed); }
    // Range-checked; invalidArgument names the setting and its range.
    Status set(SettingId id, uint64_t value);

    // By name, as text ("wmem", "65536" or "64K"; "lab.wnd_update_limit", "max").
    // String settings: "lab.fabric" (sim|verbs[:device]), "lab.link" (ideal|cx4-25g|cx4lx-vf).
    Status set(const std::string& name, const std::string& value);
    Result<std::string> get(const std::string& name) const;
    std::vector<SettingValue> list() const;

    std::string fabric() const;
    std::string linkModel() const;
    std::string ueid() const;  // lab.ueid: empty = SMC-R v1 only

private:
    std::atomic<uint64_t> m_values[static_cast<size_t>(SettingId::count_)];
    mutable std::mutex m_textMutex;
    std::vector<std::string> m_text;  // text settings, by their row in allSettings()
};

}  // namespace smcr
