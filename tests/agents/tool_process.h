// Helpers for tests that drive smclab and the reference tools as processes.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QString>
#include <QTcpSocket>
#include <QThread>

namespace smclab::testing {

inline QString smclabProgram() {
    const char* dir = std::getenv("SMCLAB_BIN_DIR");
    return QString::fromLocal8Bit(dir ? dir : ".") + "/smclab";
}

// A tool from PATH or the sbin directories (nginx lives in /usr/sbin).
inline QString findTool(const QString& name) {
    QString path = QStandardPaths::findExecutable(name);
    if (path.isEmpty()) path = QStandardPaths::findExecutable(name, {"/usr/sbin", "/sbin", "/usr/local/sbin"});
    return path;
}

// Exits 77 (skipped) with a message when a reference tool is missing.
inline void requireToolOrSkip(const QString& name) {
    if (findTool(name).isEmpty()) {
        std::printf("SKIP: %s is not installed (packaging/install-deps.sh installs it)\n", qPrintable(name));
        std::exit(77);
    }
}

// A port nobody listens on right now (bind to 0, read it, close).
inline quint16 freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

inline bool waitForPort(quint16 port, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < timeoutMs) {
        QTcpSocket s;
        s.connectToHost("127.0.0.1", port);
        if (s.waitForConnected(200)) return true;
        QThread::msleep(50);
    }
    return false;
}

// Starts `smclab serve ...` and reads the port from its "listening on" line.
inline quint16 startServe(QProcess& process, const QStringList& args) {
    process.start(smclabProgram(), QStringList{"serve"} + args);
    if (!process.waitForStarted(5000)) return 0;
    QElapsedTimer timer;
    timer.start();
    QByteArray out;
    while (timer.elapsed() < 10000) {
        process.waitForReadyRead(200);
        out += process.readAllStandardOutput();
        const auto m = QRegularExpression("listening on [^ ]*:(\\d+)").match(QString::fromUtf8(out));
        if (m.hasMatch()) return static_cast<quint16>(m.captured(1).toUInt());
        if (process.state() == QProcess::NotRunning) break;
    }
    return 0;
}

inline void stopProcess(QProcess& process) {
    if (process.state() == QProcess::NotRunning) return;
    process.terminate();
    if (!process.waitForFinished(5000)) {
        process.kill();
        process.waitForFinished(2000);
    }
}

struct RunOutput {
    int exitCode = -1;
    QString out;
    QString err;
};

inline RunOutput runProgram(const QString& program, const QStringList& args, int timeoutMs = 30000) {
    QProcess p;
    p.start(program, args);
    RunOutput r;
    if (!p.waitForStarted(5000)) {
        r.err = "could not start " + program;
        return r;
    }
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(2000);
        r.err = program + " timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// The number after `label` in tool output (e.g. "Requests/sec:"), or -1.
inline double numberAfter(const QString& text, const QString& label) {
    const auto m = QRegularExpression(QRegularExpression::escape(label) + "\\s*([0-9.]+)").match(text);
    return m.hasMatch() ? m.captured(1).toDouble() : -1.0;
}

}  // namespace smclab::testing
