#include "kvm_probe.h"

#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include "vm_tools.h"

namespace smclab::lab::vm {

namespace {

constexpr int kProbeDeadlineMs = 15'000;
// Printed once the kernel has run its whole early boot and looks for the
// root file system, which the probe does not give it.
constexpr const char* kLateBootLine = "Cannot open root device";

QByteArray bootId() {
    QFile f(QStringLiteral("/proc/sys/kernel/random/boot_id"));
    return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed() : QByteArray();
}

QString lastLine(const QByteArray& text) {
    const QList<QByteArray> lines = text.trimmed().split('\n');
    return lines.isEmpty() ? QString() : QString::fromUtf8(lines.last()).trimmed();
}

KvmVerdict runProbe(const VmKernel& kernel) {
    const QStringList argv{QStringLiteral("qemu-system-x86_64"),
                           QStringLiteral("-accel"),
                           QStringLiteral("kvm"),
                           QStringLiteral("-cpu"),
                           QStringLiteral("host"),
                           QStringLiteral("-m"),
                           QStringLiteral("256"),
                           QStringLiteral("-nodefaults"),
                           QStringLiteral("-display"),
                           QStringLiteral("none"),
                           QStringLiteral("-serial"),
                           QStringLiteral("stdio"),
                           QStringLiteral("-no-reboot"),
                           QStringLiteral("-kernel"),
                           kernel.vmlinuz,
                           QStringLiteral("-append"),
                           QStringLiteral("console=ttyS0 panic=-1")};
    auto out = runTool(argv, {}, kProbeDeadlineMs);
    if (!out) {
        // runTool's error carries QEMU's last stderr lines ("failed to set
        // MSR", "KVM internal error") or says the deadline passed.
        QString message = QString::fromStdString(out.error().message);
        const qsizetype at = message.indexOf(QLatin1String(": exit "));  // after the command line
        if (at >= 0) message = QStringLiteral("QEMU") + message.mid(at);
        return {false, message.simplified()};  // one line, for the progress line and the cache
    }
    if (out->stdoutBytes.contains(kLateBootLine)) return {true, {}};
    return {false, QStringLiteral("the kernel stopped before looking for its root device (its last line: %1)")
                       .arg(lastLine(out->stdoutBytes))};
}

}  // namespace

KvmVerdict probeKvmBoot(const VmKernel& kernel) {
    const QString cachePath = QFileInfo(kernel.vmlinuz).absolutePath() + QStringLiteral("/kvm-probe");
    const QByteArray boot = bootId();
    QFile cached(cachePath);
    if (!boot.isEmpty() && cached.open(QIODevice::ReadOnly)) {
        const QList<QByteArray> lines = cached.readAll().split('\n');
        if (lines.size() >= 2 && lines[0] == boot) {
            return {lines[1] == "boots", lines.size() >= 3 ? QString::fromUtf8(lines[2]) : QString()};
        }
        cached.close();
    }
    const KvmVerdict verdict = runProbe(kernel);
    if (!boot.isEmpty() && cached.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        cached.write(boot + '\n' + (verdict.boots ? "boots" : "fails") + '\n' + verdict.why.toUtf8() + '\n');
    }
    return verdict;
}

}  // namespace smclab::lab::vm
