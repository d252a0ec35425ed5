// Runs real programs for the preload tests: each under build/bin/smcr_run
// or plain, with a private sim directory (so the registry of libsmcr
// listeners is the test's own) and a stats directory; finds free ports and
// reads the counters files.
#pragma once

#include <memory>
#include <vector>

#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

class PreloadHarness {
public:
    PreloadHarness();
    ~PreloadHarness();

    static QString binDir();
    static QString smcrRun();
    static QString testBin(const QString& name);  // build/tests/<name>
    static int freePort();

    QString simDir() const { return m_dir.path() + "/sim"; }
    QString statsDir() const { return m_dir.path() + "/stats"; }
    QString path(const QString& name) const { return m_dir.path() + "/" + name; }

    // A server in the background: under smcr_run when preloaded. Waits
    // until `readyText` shows on its stdout, or until port accepts when
    // readyText is empty.
    QProcess* startServer(bool preloaded, const QString& program, const QStringList& args, int port,
                          const QString& readyText = {}, const QStringList& extraEnv = {});
    // A program in the background, not waited for (ended by stopServers).
    QProcess* startBackground(const QString& program, const QStringList& args, const QStringList& extraEnv = {});
    // Runs a client to its end (bounded); returns its exit code, stdout in *out.
    int runClient(bool preloaded, const QString& program, const QStringList& args, QString* out, int timeoutMs = 20000,
                  const QStringList& extraEnv = {}, QString* err = nullptr);
    // Ends the servers started so far (SIGTERM, then SIGKILL).
    void stopServers();

    // Every counters file written so far.
    std::vector<QJsonObject> stats() const;

private:
    QProcessEnvironment environment(const QStringList& extraEnv) const;

    QTemporaryDir m_dir;
    std::vector<std::unique_ptr<QProcess>> m_servers;
};
