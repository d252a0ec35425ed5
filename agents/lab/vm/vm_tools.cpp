#include "vm_tools.h"

#include <QProcess>
#include <QStandardPaths>

namespace smclab::lab::vm {

QString packageOf(const QString& program) {
    if (program == QLatin1String("qemu-system-x86_64")) return QStringLiteral("qemu-system-x86");
    if (program == QLatin1String("busybox")) return QStringLiteral("busybox-static");
    if (program == QLatin1String("depmod")) return QStringLiteral("kmod");
    if (program == QLatin1String("dpkg-deb")) return QStringLiteral("dpkg");
    if (program == QLatin1String("apt-get")) return QStringLiteral("apt");
    return {};
}

smcr::Result<ToolOutput> runTool(const QStringList& argv, const QString& workDir, int timeoutMs) {
    const QString program = argv.value(0);
    const QString path = QStandardPaths::findExecutable(program);
    const QString command = argv.join(QLatin1Char(' '));
    if (path.isEmpty()) {
        const QString package = packageOf(program);
        return smcr::fail(smcr::Errc::notFound,
                          (program + QStringLiteral(" not found") +
                           (package.isEmpty() ? QString() : QStringLiteral(" (Debian package %1)").arg(package)))
                              .toStdString());
    }
    QProcess process;
    if (!workDir.isEmpty()) process.setWorkingDirectory(workDir);
    process.start(path, argv.mid(1));
    if (!process.waitForStarted(10'000))
        return smcr::fail(smcr::Errc::systemError,
                          (command + QStringLiteral(": ") + process.errorString()).toStdString());
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(2000);
        return smcr::fail(smcr::Errc::timedOut,
                          (command + QStringLiteral(": no end within %1 s").arg(timeoutMs / 1000)).toStdString());
    }
    ToolOutput out{process.readAllStandardOutput(), process.readAllStandardError()};
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        const QByteArray tail = out.stderrBytes.trimmed().right(600);
        return smcr::fail(
            smcr::Errc::systemError,
            (command + QStringLiteral(": exit %1: ").arg(process.exitCode()) + QString::fromUtf8(tail)).toStdString());
    }
    return out;
}

}  // namespace smclab::lab::vm
