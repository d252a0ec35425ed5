// "Local lab" for the desktop: the one local-lab launcher of the CLI demo
// (agents/locallab: a server agent in a network namespace behind a veth
// shaped to the link model where the host allows it, loopback with the
// reason otherwise) as a QObject with the page's signals. The agents live
// as long as this object and never longer than the application: stopped
// when it is destroyed (with its page or window), when the application
// quits (aboutToQuit), and, should the GUI die without either, by the
// kernel (PR_SET_PDEATHSIG, set by locallab).
//
// The launcher is synchronous (namespace, veth, tc, then the agents up to
// accepting connections: well under a second here); it runs on the GUI
// thread because the kernel's parent-death signal follows the thread that
// started the agents. The signals are queued so callers connect first.
#pragma once

#include <memory>

#include <QJsonObject>
#include <QObject>
#include <QStringList>

// agents/locallab/local_lab.h; angle brackets so that this file (same name)
// is not found first.
#include <local_lab.h>

namespace smclab::gui {

class LocalLab : public QObject {
    Q_OBJECT
public:
    explicit LocalLab(QObject* parent = nullptr);
    ~LocalLab() override;

    // The agent program: next to this executable, else in SMCLAB_BIN_DIR.
    static QString agentProgram();
    // The sim link models the lab can put on its wire, and the default
    // (the datapath preset's).
    static QStringList linkModels();
    static QString defaultLinkModel();

    // The wire for `linkModel`, then `count` agents (server, client, ...);
    // agentStarted() reports each address, then allStarted(), both queued.
    // false (and failed()) when the model is unknown or an agent does not
    // start; a wire the host cannot shape is not a failure (wire().note).
    bool start(const QString& linkModel, int count = 2);
    void shutdown();
    bool isRunning() const { return !m_addresses.isEmpty(); }
    QString token() const;
    QString tokenFile() const;
    QStringList addresses() const { return m_addresses; }
    // The agents' process ids (tests check that none outlives the lab).
    QList<qint64> processIds() const;

    // What TCP and SMC cross between the agents (empty before start()).
    const locallab::WireRecord& wire() const { return m_lab->wire(); }
    // The record as Orchestrator::setWire takes it.
    QJsonObject wireJson() const { return isRunning() ? m_lab->wire().toJson() : QJsonObject(); }
    // The server agents run in a namespace: they cannot trade roles with the
    // clients, which stay on this host's loopback.
    bool inNamespace() const { return isRunning() && m_lab->shaped(); }

signals:
    void agentStarted(const QString& address);
    void allStarted(const QStringList& addresses);
    void failed(const QString& error);

private:
    std::unique_ptr<locallab::LocalLab> m_lab;
    QStringList m_addresses;
};

}  // namespace smclab::gui
