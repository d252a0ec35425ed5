#include "preload_harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QThread>

namespace {

bool portAccepts(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return ok;
}

}  // namespace

PreloadHarness::PreloadHarness() {
    QDir().mkpath(simDir());
    QDir().mkpath(statsDir());
    // nginx's workers run as nobody: they write their counters here too.
    QFile::setPermissions(statsDir(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                                          QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther |
                                          QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup);
    QFile::setPermissions(m_dir.path(), QFile::permissions(statsDir()));
    QFile::setPermissions(simDir(), QFile::permissions(statsDir()));
}

PreloadHarness::~PreloadHarness() {
    stopServers();
}

QString PreloadHarness::binDir() {
    return qEnvironmentVariable("SMCLAB_BIN_DIR");
}
QString PreloadHarness::smcrRun() {
    return binDir() + "/smcr_run";
}
QString PreloadHarness::testBin(const QString& name) {
    return binDir() + "/../tests/" + name;
}

int PreloadHarness::freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

QProcessEnvironment PreloadHarness::environment(const QStringList& extraEnv) const {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SMCR_SIM_DIR", simDir());
    for (const QString& kv : extraEnv) {
        const qsizetype eq = kv.indexOf('=');
        env.insert(kv.left(eq), kv.mid(eq + 1));
    }
    return env;
}

QProcess* PreloadHarness::startServer(bool preloaded, const QString& program, const QStringList& args, int port,
                                      const QString& readyText, const QStringList& extraEnv) {
    auto p = std::make_unique<QProcess>();
    p->setProcessEnvironment(environment(extraEnv));
    p->setProcessChannelMode(QProcess::SeparateChannels);
    if (preloaded) {
        p->start(smcrRun(), QStringList{"--stats", statsDir(), "-v", program} + args);
    } else {
        p->start(program, args);
    }
    p->waitForStarted(5000);
    QElapsedTimer t;
    t.start();
    QString seen;
    while (t.elapsed() < 10000 && p->state() == QProcess::Running) {
        if (!readyText.isEmpty()) {
            p->waitForReadyRead(100);
            seen += QString::fromUtf8(p->readAllStandardOutput());
            if (seen.contains(readyText)) break;
        } else {
            if (portAccepts(port)) break;
            QThread::msleep(50);
        }
    }
    m_servers.push_back(std::move(p));
    return m_servers.back().get();
}

QProcess* PreloadHarness::startBackground(const QString& program, const QStringList& args,
                                          const QStringList& extraEnv) {
    auto p = std::make_unique<QProcess>();
    p->setProcessEnvironment(environment(extraEnv));
    p->start(program, args);
    p->waitForStarted(5000);
    m_servers.push_back(std::move(p));
    return m_servers.back().get();
}

int PreloadHarness::runClient(bool preloaded, const QString& program, const QStringList& args, QString* out,
                              int timeoutMs, const QStringList& extraEnv, QString* err) {
    QProcess p;
    p.setProcessEnvironment(environment(extraEnv));
    if (preloaded) {
        p.start(smcrRun(), QStringList{"--stats", statsDir(), "-v", program} + args);
    } else {
        p.start(program, args);
    }
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(2000);
        if (out != nullptr) *out = QString::fromUtf8(p.readAllStandardOutput());
        if (err != nullptr) *err = QString::fromUtf8(p.readAllStandardError());
        return -1;
    }
    if (out != nullptr) *out = QString::fromUtf8(p.readAllStandardOutput());
    if (err != nullptr) *err = QString::fromUtf8(p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
}

void PreloadHarness::stopServers() {
    for (auto& p : m_servers) {
        if (p->state() == QProcess::NotRunning) continue;
        p->terminate();
        if (!p->waitForFinished(3000)) {
            p->kill();
            p->waitForFinished(2000);
        }
    }
    m_servers.clear();
}

std::vector<QJsonObject> PreloadHarness::stats() const {
    std::vector<QJsonObject> out;
    const QStringList files = QDir(statsDir()).entryList({"smcr-*.json"}, QDir::Files);
    for (const QString& name : files) {
        QFile f(statsDir() + "/" + name);
        if (!f.open(QIODevice::ReadOnly)) continue;
        out.push_back(QJsonDocument::fromJson(f.readAll()).object());
    }
    return out;
}
