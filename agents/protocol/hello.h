// The agent's first message: protocol version and what this host can do.
// A controller (orchestrator, CLI, GUI hosts page) reads it to pick
// transports and fabrics and to record host facts with every run.
#pragma once

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

namespace smclab::protocol {

struct HostFacts {
    QString hostname;
    QString cpuModel;
    int cpuCount = 0;
    QString kernelName;     // uname -s
    QString kernelRelease;  // uname -r
    QString kernelVersion;  // uname -v
    QString machine;        // uname -m
    // "qemu-tcg" or "qemu-kvm" on a VM lab host (agents/lab/vm), else "":
    // under TCG every timing is emulated.
    QString virtualization;
};

struct NicInfo {
    QString name;
    QString mac;
    int mtu = 0;
    bool up = false;
    QStringList addresses;  // CIDR notation
};

struct RdmaDevice {
    QString name;       // /sys/class/infiniband/<name>
    QStringList ports;  // "1: ACTIVE (RoCE v2)" style, from the ports/ subtree
    QString netDevice;  // the Ethernet interface behind a RoCE device, if known
};

// One named thing (fabric, transport, workload) and whether it can be used here.
struct Availability {
    QString name;
    bool available = false;
    QString reason;  // why not, when !available
};

struct AgentLimits {
    int maxRuns = 0;
    qint64 maxDurationMs = 0;
    qint64 minSampleIntervalMs = 0;
};

// Kernel SMC-R's set-up on the host, as the kernel's SMC netlink families
// report it: its UEIDs (SMC-Rv2 over soft-RoCE needs one), its pnet table
// (ties an RDMA device to its netdev), and the fallbacks it counted since
// boot. Optional: only agents whose host has kernel SMC send it.
struct KernelSmcrState {
    bool reported = false;
    QString error;  // what could not be read, when something could not
    QStringList ueids;
    QStringList pnet;       // "NET1: eth1, rxe0 port 1"
    QStringList fallbacks;  // "client 0x03030000 NOSMCDEV: 3"
};

struct Capabilities {
    HostFacts host;
    QList<NicInfo> nics;
    QList<RdmaDevice> rdmaDevices;
    QList<Availability> fabrics;     // engine fabric registry (sim, verbs); empty if the engine has none yet
    QList<Availability> transports;  // tcp, smcr, ksmc
    QStringList workloads;           // tcp_bw, tcp_lat, http, kv
    Availability ksmc;               // kernel AF_SMC, same as the ksmc transport entry
    KernelSmcrState kernelSmcr;      // where ksmc is available
    // The SMC TCP option on the SYNs of the agent's libsmcr runs over a real
    // fabric (the BPF program it loaded at start); reason when it is off.
    // Absent from the JSON (name empty) where the agent has no RDMA device.
    Availability synOption;
    AgentLimits limits;

    QJsonObject toJson() const;
    static Capabilities fromJson(const QJsonObject& object);
    bool transportAvailable(const QString& name) const;
};

struct Hello {
    QString protocolVersion;
    QString agentVersion;
    QString sessionId;  // the agent's name for this connection (appears in its log)
    Capabilities capabilities;

    QJsonObject toJson() const;
    static Hello fromJson(const QJsonObject& object);
};

}  // namespace smclab::protocol

Q_DECLARE_METATYPE(smclab::protocol::Hello)
