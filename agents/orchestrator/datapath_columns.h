// The columns of the datapath patch series ("net/smc: some datapath
// performance optimizations", 2022): the one definition behind the
// `datapath` campaign preset (demo, GUI, `smclab run`) and
// `smclab bench stream --preset datapath`. The cover-letter table has the
// first four; the isolation columns turn on one optimisation over the
// baseline so its effect can be checked alone.
#pragma once

#include <optional>
#include <vector>

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace smclab::orchestrator {

struct DatapathColumn {
    QString key;           // option word: "nocork", "tcp", ...
    QString label;         // table header: "SMC-NoCork", ...
    QString transport;     // "smcr" or "tcp"
    QJsonObject settings;  // engine settings of both ends (smcr only), kernel sysctl / lab.* names
    QString summary;       // one line for --help and the notes
};

// Every known column, cover-letter columns first.
const std::vector<DatapathColumn>& datapathColumns();
// The four columns of the cover-letter table.
QStringList defaultDatapathColumnKeys();
// The isolation columns: window limit, drain_then_arm, tx deferral alone, window limit with autocorking.
QStringList isolationColumnKeys();
// By key or label (case-insensitive).
std::optional<DatapathColumn> findDatapathColumn(const QString& name);

// The preset's name, as the store keeps it with its campaigns.
inline constexpr const char* kDatapathPreset = "datapath";

// The series' environment as a sim link model (engine/src/fabric/sim/link_model.cpp).
inline constexpr const char* kDatapathLink = "cx4lx-vf";
// How every SMC column waits, and why (the preset's notes say it too).
inline constexpr int kDatapathBusyPollUs = 0;
inline constexpr const char* kDatapathWaitingNote =
    "SMC waits like the kernel (lab.busy_poll_us 0: a waiter sleeps until the CQ's interrupt), as the "
    "series' kernel SMC did; busy polling would drain the CQ before it is ever armed and leave the series' "
    "CQ and push changes nothing to change. With the kernel's default 64 KiB sndbuf and RMB (wmem, rmem) "
    "every buffer-full then costs sleeps and wake-ups, 10-20 us each on a VM, which caps tcp_bw there near "
    "0.7 GB/s; wmem=512K and rmem=512K lift it (about 3 GB/s on the lab's 2-CPU VM)";

}  // namespace smclab::orchestrator
