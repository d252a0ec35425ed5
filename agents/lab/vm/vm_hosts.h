// VM lab hosts: QEMU guests booting a pinned Debian kernel (vm_kernel.h)
// with the kernel's SMC-R and soft-RoCE (rxe), the host's root file system
// shared read-only, joined by a virtual link, each running smclab-agent
// with a fresh token behind a forwarded control port. They land in the lab
// file (mode "vm"), so campaigns, `smclab lab status` and the GUI use them
// like any other lab host. No root networking on the host: the link is a
// pair of UDP sockets on 127.0.0.1 (QEMU's dgram netdev), the control port
// QEMU's user network.
#pragma once

#include <functional>

#include <smcr/result.h>

#include <QList>
#include <QString>
#include <QStringList>

#include "lab_file.h"

namespace smclab::lab::vm {

enum class VmAccel { invalid = 0, automatic, kvm, tcg };

struct VmUpOptions {
    int count = 2;  // 1 or 2: the virtual link joins two hosts
    QString labPath;
    QString kernelVersion;  // "" = vmKernelVersion()
    int memoryMb = 1024;
    int cpus = 1;
    VmAccel accel = VmAccel::automatic;  // KVM where a probe guest boots under it, else TCG (slow, the real kernel)
    int bootTimeoutMs = 240'000;
    int links = 1;  // 2: a second NIC and rxe device per host, for the kernel's second link and failover
    QString ueid = QStringLiteral("SMCLAB-VM");
    QString pnet = QStringLiteral("SMCLAB");
    // net.smc sysctls set at boot. Over rxe a link group must stay at one
    // link on one device: the 6.12 server's asymmetric second link fails in
    // rxe_modify_qp (-EINVAL) and hangs the client (agents/lab/README.md).
    QStringList sysctls{QStringLiteral("smcr_max_links_per_lgr=1")};
    QString binDir;  // where smclab and smclab-agent are ("" = beside this program)
    QString namePrefix = QStringLiteral("vm");
};

// Progress of a bring-up: which host ("" = all) is at which step.
using VmProgress = std::function<void(const QString& host, const QString& step)>;

struct VmHostUp {
    LabHost host;
    QString accel;        // "kvm" or "tcg"
    QString kernel;       // the guest's uname -r
    QString linkAddress;  // the guest's address on the virtual link
    // Seconds of guest uptime at each step (boot = its init started).
    double bootS = 0;
    double modulesS = 0;
    double rxeS = 0;
    double agentS = 0;
    double wallS = 0;  // host wall time from QEMU's start to the agent's hello
};

// Boots the hosts, waits for each agent's hello, and records them in the
// lab file (replacing VM hosts of the same names, which are stopped first).
// On failure every VM this call started is stopped again, and the error
// names the host with its console's last lines.
smcr::Result<QList<VmHostUp>> vmUp(const VmUpOptions& options, const VmProgress& progress);

struct VmHostState {
    QString name;
    bool running = false;  // the QEMU process is alive
    qint64 pid = 0;
    QString consoleTail;  // the console's last lines (failures, "smclab-vm:" steps)
};

// A VM lab host's QEMU process and console.
VmHostState vmState(const LabHost& host);

// Powers off the named VM hosts of the lab (all VM hosts when `names` is
// empty) and removes them from the lab file. Returns the names stopped.
smcr::Result<QStringList> vmDown(const QString& labPath, const QStringList& names);

struct VmExecResult {
    int exitCode = -1;
    QByteArray output;  // stdout and stderr, interleaved
};

// Runs `script` (sh) inside a running VM lab host as root, through its
// shared folder; waits up to `timeoutMs`.
smcr::Result<VmExecResult> vmExec(const LabHost& host, const QString& script, int timeoutMs);

}  // namespace smclab::lab::vm
