// The wire of a local lab: what TCP and SMC cross between the two agents of
// one host, and the record of it that every run keeps.
//
// SMC crosses the sim fabric with a link model (smcr/fabric_sim.h). TCP must
// cross the same modelled link or a table compares two wires: for a model
// with a rate, the server agent runs in its own network namespace joined to
// the root one by a veth pair, shaped to the model's rate with tbf on both
// ends, with the model's delay by netem where the kernel has it, and the
// CLC handshake crosses the same veth. The "ideal" model is unshaped on both
// sides: TCP over loopback, the sim without delay (SMC-D loopback against
// TCP over lo). Where a namespace cannot be made (no CAP_NET_ADMIN, no
// `ip`), TCP runs over loopback and the record says so. A short TCP probe
// through the shaped veth records what the host can carry (veth_probe.h):
// where that is below the model's rate, the record says the TCP column is
// host-limited.
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
    QString tcpRate;              // "tbf 25gbit on both veth ends", "unshaped"
    QString tcpDelay;             // "netem 1250 ns each way", "not applied: ...", "none"
    double tcpCapacityGbps = 0;   // what a probe moved through the shaped veth, 0 = not probed
    bool tcpHostLimited = false;  // the probe fell below 90% of the model's rate
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

// A server namespace and the veth pair that joins it to this one, shaped to
// a link model; removed (namespace, veth, qdiscs) when destroyed.
class NamespaceWire {
public:
    // Makes the namespace, the veth and the shaping. Errors say what the
    // host refused ("not root", "ip netns add: Operation not permitted").
    static smcr::Result<std::unique_ptr<NamespaceWire>> create(const smcr::fabric::sim::LinkModel& model);
    ~NamespaceWire();
    NamespaceWire(const NamespaceWire&) = delete;
    NamespaceWire& operator=(const NamespaceWire&) = delete;

    QString serverNamespace() const { return m_namespace; }
    QString serverAddress() const { return m_serverAddress; }  // inside the namespace
    QString rootAddress() const { return m_rootAddress; }      // this namespace's end
    QString subnet() const { return m_subnet; }                // "10.a.b.0/30", for --allow-peer
    const WireRecord& record() const { return m_record; }

private:
    NamespaceWire() = default;
    // build(): names and addresses, the namespace, the veth pair, the
    // shaping of both ends, then the capacity probe and the record's note.
    smcr::Status build(const smcr::fabric::sim::LinkModel& model);
    void chooseNames();
    smcr::Status addVethPair(const QString& mtu);
    smcr::Status shapeBothEnds(const smcr::fabric::sim::LinkModel& model);
    // One veth end ({"dev", D} or {"-n", NS, "dev", D}): netem's delay while
    // *delayed (cleared, with tc's reason, where netem is missing), then tbf's rate.
    smcr::Status shapeEnd(const smcr::fabric::sim::LinkModel& model, const QStringList& end, bool* delayed,
                          QString* delayWhy);
    // Records what TCP can carry through the shaped veth (veth_probe.h).
    void probeCapacity(const smcr::fabric::sim::LinkModel& model);
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
