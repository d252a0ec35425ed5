#include "ssh_remote.h"

#include <QProcess>

namespace smclab::lab {

QString shellQuote(const QString& text) {
    QString out = text;
    out.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + out + QLatin1Char('\'');
}

smcr::Result<QString> runRemote(const SshTarget& target, const QString& script, const QByteArray& input,
                                int timeoutMs) {
    QStringList args{QStringLiteral("-o"), QStringLiteral("BatchMode=yes"), QStringLiteral("-o"),
                     QStringLiteral("ConnectTimeout=10")};
    if (!target.configFile.isEmpty()) args << QStringLiteral("-F") << target.configFile;
    if (target.port > 0) args << QStringLiteral("-p") << QString::number(target.port);
    if (!target.user.isEmpty()) args << QStringLiteral("-l") << target.user;
    args << QStringLiteral("--") << target.host << script;
    QProcess ssh;
    ssh.start(QStringLiteral("ssh"), args);
    if (!ssh.waitForStarted(10'000)) {
        return smcr::fail(
            smcr::Errc::notSupported,
            QStringLiteral("cannot run ssh (install openssh-client): %1").arg(ssh.errorString()).toStdString());
    }
    if (!input.isEmpty()) ssh.write(input);
    ssh.closeWriteChannel();
    if (!ssh.waitForFinished(timeoutMs)) {
        ssh.kill();
        ssh.waitForFinished(2000);
        return smcr::fail(
            smcr::Errc::timedOut,
            QStringLiteral("%1: ssh did not finish within %2 s").arg(target.host).arg(timeoutMs / 1000).toStdString());
    }
    const QString err = QString::fromLocal8Bit(ssh.readAllStandardError()).trimmed();
    if (ssh.exitStatus() != QProcess::NormalExit || ssh.exitCode() == 255) {
        return smcr::fail(smcr::Errc::connectionRefused,
                          QStringLiteral("%1: ssh failed: %2")
                              .arg(target.host, err.isEmpty() ? QStringLiteral("no message") : err)
                              .toStdString());
    }
    if (ssh.exitCode() != 0) {
        return smcr::fail(smcr::Errc::systemError, QStringLiteral("%1: remote command failed (exit %2): %3")
                                                       .arg(target.host)
                                                       .arg(ssh.exitCode())
                                                       .arg(err)
                                                       .toStdString());
    }
    return QString::fromLocal8Bit(ssh.readAllStandardOutput());
}

smcr::Result<QString> resolveSshHost(const SshTarget& target) {
    QStringList args{QStringLiteral("-G")};
    if (!target.configFile.isEmpty()) args << QStringLiteral("-F") << target.configFile;
    if (target.port > 0) args << QStringLiteral("-p") << QString::number(target.port);
    if (!target.user.isEmpty()) args << QStringLiteral("-l") << target.user;
    args << QStringLiteral("--") << target.host;
    QProcess ssh;
    ssh.start(QStringLiteral("ssh"), args);
    if (!ssh.waitForStarted(10'000) || !ssh.waitForFinished(10'000) || ssh.exitCode() != 0) {
        return smcr::fail(smcr::Errc::notFound,
                          QStringLiteral("ssh -G %1: %2")
                              .arg(target.host, QString::fromUtf8(ssh.readAllStandardError()).trimmed())
                              .toStdString());
    }
    // One "key value" line per option; "hostname" is the address to dial.
    for (const QByteArray& line : ssh.readAllStandardOutput().split('\n')) {
        if (line.startsWith("hostname ")) return QString::fromUtf8(line.mid(9)).trimmed();
    }
    return target.host;
}

}  // namespace smclab::lab
