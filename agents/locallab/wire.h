// The wire of a local lab: what TCP and SMC cross between the two agents of
// one host, and the record of it that every run keeps.
//
// SMC crosses the sim fabric with a link model (smcr/fabric_sim.h). TCP must
// cross the same modelled link or a table compares two wires: for a model
// with a rate, the server agent runs in its own network namespace joined to
// the root one by a veth pair, and the CLC handshake crosses the same veth.
// The "ideal" model is unshaped on both sides: TCP over loopback, the sim
// without delay (SMC-D loopback against TCP over lo). Where a namespace
// cannot be made (no CAP_NET_ADMIN, no `ip`), TCP runs over loopback and the
// record says so.
//
// The veth carries the host's real TCP, not a software copy of a NIC's
// per-packet costs:
// - its MTU is loopback's order (65535), not the model's Ethernet MTU: a
//   NIC segments and coalesces in hardware (TSO, LRO) what a 1500-byte veth
//   makes this host's CPUs do per segment and per ACK, which halved TCP at
//   1-64 KiB against loopback;
// - both ends steer their receive processing to one CPU (RPS): a veth hands
//   a packet to the CPU that sent it, so a sender that moves between CPUs,
//   or a qdisc that releases packets from a timer, reorders the stream and
//   TCP retransmits what was never lost;
// - a short TCP probe (veth_probe.h) measures what the host moves through
//   it; tbf shapes to the model's rate only where the host moves more than
//   that rate (below it, tbf would bind nothing and cost a queue), and the
//   record says the TCP column is host-limited where the host moves less;
// - netem adds the model's delay where the kernel has it.
#pragma once

#include <memory>

#include <smcr/fabric_sim.h>
#include <smcr/result.h>

#include <QJsonObject>
#include <QString>

namespace smclab::locallab {

// What one run's TCP and SMC crossed (stored with the run, shown by
// `smclab show`, the reports and the GUI).
struct WireRecord {
    QString model;                // the sim link model's name ("cx4-25g")
    double bandwidthGbps = 0;     // the model's rate, 0 = unlimited
    qint64 latencyNs = 0;         // the model's one-way latency
    int ethernetMtu = 0;          // the veth's MTU (0 = loopback's)
    QString tcpPath;              // "loopback" or "veth between network namespaces"
    QString tcpRate;              // "tbf 25gbit on both veth ends", "unshaped: ..."
    QString tcpSteering;          // "receive steering of both ends on CPU 1", empty on loopback
    QString tcpDelay;             // "netem 1250 ns each way", "not applied: ...", "none"
    double tcpCapacityGbps = 0;   // what a probe moved through the shaped veth, 0 = not probed
    bool tcpHostLimited = false;  // the host moves less than the model's rate
    QString tcpCapacity;          // the probe in words, "HOST-LIMITED" where below the model
    QString note;                 // one sentence for a table's notes

    QJsonObject toJson() const;
    static WireRecord fromJson(const QJsonObject& object);
};

// The sim link model by name (smcr::fabric::sim::linkPreset), as an error
// naming the known ones.
smcr::Result<smcr::fabric::sim::LinkModel> linkModel(const QString& name);

// The Ethernet MTU that carries RoCE frames of the model's path MTU.
int ethernetMtuFor(smcr::fabric::PathMtu mtu);

// The veth's MTU: loopback's order (see above), the largest a veth takes.
inline constexpr int kVethMtu = 65535;

// How the veth is made. The defaults carry the host's TCP; the others make
// the wire as it was before (the model's 1500-byte MTU, no steering, tbf
// whatever the host moves), so `smclab bench wire` can measure each choice.
struct VethOptions {
    int mtu = kVethMtu;
    int receiveCpu = -1;        // both ends' receive processing; -1: the last CPU this process may use
    bool steerReceives = true;  // off: the kernel's default, no receive steering
    bool shapeAlways = false;   // on: tbf at the model's rate even where the host moves less
};

// A server namespace and the veth pair that joins it to this one, shaped to
// a link model; removed (namespace, veth, qdiscs) when destroyed.
class NamespaceWire {
public:
    // Makes the namespace, the veth and the shaping. Errors say what the
    // host refused ("not root", "ip netns add: Operation not permitted").
    static smcr::Result<std::unique_ptr<NamespaceWire>> create(const smcr::fabric::sim::LinkModel& model,
                                                               const VethOptions& options = {});
    ~NamespaceWire();
    NamespaceWire(const NamespaceWire&) = delete;
    NamespaceWire& operator=(const NamespaceWire&) = delete;

    QString serverNamespace() const { return m_namespace; }
    QString serverAddress() const { return m_serverAddress; }  // inside the namespace
    QString rootAddress() const { return m_rootAddress; }      // this namespace's end
    QString subnet() const { return m_subnet; }                // "10.a.b.0/30", for --allow-peer
    QString rootDevice() const { return m_rootDevice; }        // this namespace's veth end
    QString serverDevice() const { return m_serverDevice; }    // the server namespace's end
    const WireRecord& record() const { return m_record; }

private:
    NamespaceWire() = default;
    // build(): names and addresses, the namespace, the veth pair and its
    // receive steering, the capacity probe, the shaping of both ends, and
    // the record's note.
    smcr::Status build(const smcr::fabric::sim::LinkModel& model, const VethOptions& options);
    void chooseNames();
    smcr::Status addVethPair(const QString& mtu);
    smcr::Status steerReceives(int cpu);
    // tbf only where `capacityGbps` (0: not probed) exceeds the model's
    // rate, or `always`.
    smcr::Status shapeBothEnds(const smcr::fabric::sim::LinkModel& model, double capacityGbps, bool always);
    // One veth end ({"dev", D} or {"-n", NS, "dev", D}): netem's delay while
    // *delayed (cleared, with tc's reason, where netem is missing), then tbf's rate.
    smcr::Status shapeEnd(const smcr::fabric::sim::LinkModel& model, const QStringList& end, bool* delayed,
                          QString* delayWhy);
    // What TCP carries through the veth now (veth_probe.h), in Gbit/s; 0
    // with the reason in *why where the probe failed.
    double probeGbps(QString* why) const;
    // The record's capacity words and host-limited flag from a probe.
    void recordCapacity(const smcr::fabric::sim::LinkModel& model, double gbps, const QString& why, bool shaped);
    void destroy();

    QString m_namespace;
    QString m_rootDevice;
    QString m_serverDevice;
    QString m_rootAddress;
    QString m_serverAddress;
    QString m_subnet;
    WireRecord m_record;
};

// The record of TCP over plain loopback for a model, with the reason why
// (the model is ideal, or `why` the namespace could not be made).
WireRecord loopbackRecord(const smcr::fabric::sim::LinkModel& model, const QString& why);

}  // namespace smclab::locallab
