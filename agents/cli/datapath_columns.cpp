#include "datapath_columns.h"

#include <strings.h>

namespace smclab::cli {

namespace {

// The kernel's SMC never busy-polls: a waiting sender or receiver sleeps and
// the CQ's interrupt (here the completion channel) wakes the tasklet. Every
// SMC column waits that way (lab.busy_poll_us 0); with the engine's default
// busy polling the waiting thread drains the CQ before it ever arms, so the
// CQ and push changes of the series have nothing left to change.
// `--busy-poll-us N` overrides it for every SMC column.
constexpr const char* kKernelLikeBusyPollUs = "0";

// The kernel before the series: every send pushes at once (no autocorking),
// the window-update limit of the old min(rmbe/10, SOCK_MIN_SNDBUF/2), the CQ
// re-armed after the first poll, and completions pushing data themselves
// even while the application is inside the connection.
SettingList baseline() {
    return {{"lab.busy_poll_us", kKernelLikeBusyPollUs},
            {"autocorking_size", "0"},
            {"lab.wnd_update_limit", "min"},
            {"lab.cq_mode", "arm_first"},
            {"lab.tx_defer_to_owner", "off"}};
}

SettingList baselineWith(const std::string& name, const std::string& value) {
    SettingList s = baseline();
    for (auto& [n, v] : s) {
        if (n == name) v = value;
    }
    return s;
}

std::vector<DatapathColumn> makeColumns() {
    return {
        {"nocork", "SMC-NoCork", "smcr", baseline(),
         "baseline: autocorking off, window limit min, arm_first, no tx deferral"},
        {"tcp", "TCP", "tcp", {}, "kernel TCP over loopback"},
        {"autocork", "SMC-AutoCorking", "smcr", baselineWith("autocorking_size", "65536"),
         "baseline + autocorking_size 65536"},
        {"patches", "SMC with patches", "smcr",
         {{"lab.busy_poll_us", kKernelLikeBusyPollUs},
          {"autocorking_size", "65536"},
          {"lab.wnd_update_limit", "max"},
          {"lab.cq_mode", "drain_then_arm"},
          {"lab.tx_defer_to_owner", "on"}},
         "every optimisation on"},
        {"wndlimit", "SMC-WndLimit", "smcr", baselineWith("lab.wnd_update_limit", "max"),
         "baseline + window-update limit max (patch #5 alone)"},
        {"autownd", "SMC-AutoCork+Wnd", "smcr",
         {{"lab.busy_poll_us", kKernelLikeBusyPollUs},
          {"autocorking_size", "65536"},
          {"lab.wnd_update_limit", "max"},
          {"lab.cq_mode", "arm_first"},
          {"lab.tx_defer_to_owner", "off"}},
         "autocorking + window-update limit max (patch #5 as its commit measured it)"},
        {"drain", "SMC-DrainArm", "smcr", baselineWith("lab.cq_mode", "drain_then_arm"),
         "baseline + cq_mode drain_then_arm (patch #6 alone)"},
        {"txdefer", "SMC-TxDefer", "smcr", baselineWith("lab.tx_defer_to_owner", "on"),
         "baseline + tx_defer_to_owner on (patch #7 alone)"},
    };
}

}  // namespace

const std::vector<DatapathColumn>& datapathColumns() {
    static const std::vector<DatapathColumn> kColumns = makeColumns();
    return kColumns;
}

std::vector<std::string> defaultDatapathColumnKeys() { return {"nocork", "tcp", "autocork", "patches"}; }

std::vector<std::string> isolationColumnKeys() { return {"wndlimit", "autownd", "drain", "txdefer"}; }

std::optional<DatapathColumn> findDatapathColumn(const std::string& name) {
    for (const DatapathColumn& c : datapathColumns()) {
        if (::strcasecmp(c.key.c_str(), name.c_str()) == 0 || ::strcasecmp(c.label.c_str(), name.c_str()) == 0) {
            return c;
        }
    }
    return std::nullopt;
}

}  // namespace smclab::cli
