#include "datapath_columns.h"

namespace smclab::orchestrator {

namespace {

// The kernel before the series: every send pushes at once (no autocorking),
// the window-update limit of the old min(rmbe/10, SOCK_MIN_SNDBUF/2), the CQ
// re-armed after the first poll, and completions pushing data themselves
// even while the application is inside the connection (patches 2/3, 5, 6, 7
// in their pre-series state). Every SMC column waits like the kernel.
QJsonObject settings(bool autocork, bool wndMax, bool drainFirst, bool deferTx) {
    return QJsonObject{
        {QStringLiteral("lab.busy_poll_us"), kDatapathBusyPollUs},
        {QStringLiteral("autocorking_size"), autocork ? 65536 : 0},
        {QStringLiteral("lab.wnd_update_limit"), wndMax ? QStringLiteral("max") : QStringLiteral("min")},
        {QStringLiteral("lab.cq_mode"), drainFirst ? QStringLiteral("drain_then_arm") : QStringLiteral("arm_first")},
        {QStringLiteral("lab.tx_defer_to_owner"), deferTx ? QStringLiteral("on") : QStringLiteral("off")},
    };
}

std::vector<DatapathColumn> makeColumns() {
    return {
        {"nocork", "SMC-NoCork", "smcr", settings(false, false, false, false),
         "baseline: autocorking off, window limit min, arm_first, no tx deferral"},
        {"tcp", "TCP", "tcp", {}, "kernel TCP over the same modelled wire"},
        {"autocork", "SMC-AutoCorking", "smcr", settings(true, false, false, false),
         "baseline + autocorking_size 65536"},
        {"patches", "SMC with patches", "smcr", settings(true, true, true, true), "every optimisation on"},
        {"wndlimit", "SMC-WndLimit", "smcr", settings(false, true, false, false),
         "baseline + window-update limit max (patch #5 alone)"},
        {"autownd", "SMC-AutoCork+Wnd", "smcr", settings(true, true, false, false),
         "autocorking + window-update limit max (patch #5 as its commit measured it)"},
        {"drain", "SMC-DrainArm", "smcr", settings(false, false, true, false),
         "baseline + cq_mode drain_then_arm (patch #6 alone)"},
        {"txdefer", "SMC-TxDefer", "smcr", settings(false, false, false, true),
         "baseline + tx_defer_to_owner on (patch #7 alone)"},
    };
}

}  // namespace

const std::vector<DatapathColumn>& datapathColumns() {
    static const std::vector<DatapathColumn> kColumns = makeColumns();
    return kColumns;
}

QStringList defaultDatapathColumnKeys() {
    return {"nocork", "tcp", "autocork", "patches"};
}

QStringList isolationColumnKeys() {
    return {"wndlimit", "autownd", "drain", "txdefer"};
}

std::optional<DatapathColumn> findDatapathColumn(const QString& name) {
    for (const DatapathColumn& c : datapathColumns()) {
        if (c.key.compare(name, Qt::CaseInsensitive) == 0 || c.label.compare(name, Qt::CaseInsensitive) == 0) return c;
    }
    return std::nullopt;
}

}  // namespace smclab::orchestrator
