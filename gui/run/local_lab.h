// "Local lab": two smclab-agent processes on loopback with a freshly
// generated token, so one machine can try everything (the agents' smcr
// transport uses the sim fabric). The agents live as long as this object
// and never longer than the application: they are stopped when this object
// is destroyed (with its page or window), when the application quits
// (aboutToQuit), and, should the GUI die without either, by the kernel
// (PR_SET_PDEATHSIG).
#pragma once

#include <memory>

#include <QObject>
#include <QStringList>
#include <QTemporaryDir>

class QProcess;

namespace smclab::gui {

class LocalLab : public QObject {
    Q_OBJECT
public:
    explicit LocalLab(QObject* parent = nullptr);
    ~LocalLab() override;

    // The agent program: SMCLAB_BIN_DIR, else next to this executable.
    static QString agentProgram();

    // Starts `count` agents on 127.0.0.1, port 0 each; agentStarted()
    // reports each address once it listens.
    bool start(int count = 2);
    void shutdown();
    bool isRunning() const { return !m_processes.isEmpty(); }
    QString token() const { return m_token; }
    QString tokenFile() const;
    QStringList addresses() const { return m_addresses; }
    // The agents' process ids (tests check that none outlives the lab).
    QList<qint64> processIds() const;

signals:
    void agentStarted(const QString& address);
    void allStarted(const QStringList& addresses);
    void failed(const QString& error);

private:
    void onOutput(QProcess* process);

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_token;
    QList<QProcess*> m_processes;
    QStringList m_addresses;
    int m_expected = 0;
};

}  // namespace smclab::gui
