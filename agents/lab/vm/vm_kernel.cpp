#include "vm_kernel.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

#include "cpio_writer.h"
#include "vm_guest_files.h"
#include "vm_tools.h"

namespace smclab::lab::vm {

namespace {

// What /init needs before the root is mounted: 9p over virtio and overlayfs.
const char* const kInitramfsModules[] = {"fs/netfs/netfs", "net/9p/9pnet", "net/9p/9pnet_virtio", "fs/9p/9p",
                                         "fs/overlayfs/overlay"};

smcr::Result<QByteArray> moduleBytes(const QString& modulesDir, const QString& relative) {
    const QString plain = modulesDir + QStringLiteral("/kernel/") + relative + QStringLiteral(".ko");
    if (QFileInfo::exists(plain)) {
        QFile f(plain);
        if (!f.open(QIODevice::ReadOnly))
            return smcr::fail(smcr::Errc::systemError, "cannot read " + plain.toStdString());
        return f.readAll();
    }
    // Debian 6.12 ships .ko.xz: busybox's xzcat (busybox-static) unpacks them
    // for the busybox insmod of /init.
    auto out = runTool({QStringLiteral("busybox"), QStringLiteral("xzcat"), plain + QStringLiteral(".xz")}, {}, 60'000);
    if (!out) return smcr::fail(out.error());
    return out->stdoutBytes;
}

smcr::Result<QString> buildInitramfs(const QString& kernelDir, const QString& modulesDir) {
    CpioWriter cpio;
    for (const char* dir : {"bin", "mod", "proc", "sys", "dev", "lower", "rw", "newroot"})
        cpio.addDirectory(QString::fromLatin1(dir));
    const QString busybox = QStandardPaths::findExecutable(QStringLiteral("busybox"));
    QFile bb(busybox);
    if (busybox.isEmpty() || !bb.open(QIODevice::ReadOnly))
        return smcr::fail(smcr::Errc::notFound, "busybox not found (Debian package busybox-static)");
    const QByteArray bbBytes = bb.readAll();
    // /init runs before any library is there: a dynamically linked busybox
    // (Debian's "busybox" rather than "busybox-static") cannot start.
    if (!bbBytes.startsWith("\x7f"
                            "ELF") ||
        bbBytes.contains("/lib64/ld-linux"))
        return smcr::fail(smcr::Errc::notFound,
                          busybox.toStdString() + " is not a static busybox (Debian package busybox-static)");
    cpio.addFile(QStringLiteral("bin/busybox"), bbBytes, 0755);
    for (const char* module : kInitramfsModules) {
        auto bytes = moduleBytes(modulesDir, QString::fromLatin1(module));
        if (!bytes) return smcr::fail(bytes.error());
        cpio.addFile(QStringLiteral("mod/") + QFileInfo(QString::fromLatin1(module)).fileName() + QStringLiteral(".ko"),
                     *bytes);
    }
    cpio.addFile(QStringLiteral("init"), guestInitScript(), 0755);
    const QString path = kernelDir + QStringLiteral("/initramfs.cpio");
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) || out.write(cpio.finish()) < 0)
        return smcr::fail(smcr::Errc::systemError, "cannot write " + path.toStdString());
    return path;
}

QString findDeb(const QString& dir, const QString& version) {
    const QStringList debs =
        QDir(dir).entryList({QStringLiteral("linux-image-%1_*.deb").arg(version)}, QDir::Files, QDir::Name);
    return debs.isEmpty() ? QString() : dir + QLatin1Char('/') + debs.last();
}

}  // namespace

QString vmCacheDir() {
    const QString explicitDir = qEnvironmentVariable("SMCLAB_VM_CACHE");
    if (!explicitDir.isEmpty()) return explicitDir;
    QString base = qEnvironmentVariable("XDG_CACHE_HOME");
    if (base.isEmpty()) base = QDir::homePath() + QStringLiteral("/.cache");
    return base + QStringLiteral("/smclab/vm");
}

QString vmKernelVersion() {
    const QString explicitVersion = qEnvironmentVariable("SMCLAB_VM_KERNEL");
    return explicitVersion.isEmpty() ? QString::fromLatin1(kPinnedKernel) : explicitVersion;
}

smcr::Result<VmKernel> ensureKernel(const QString& version, const StepReport& report) {
    const QString dir = vmCacheDir() + QStringLiteral("/kernel-") + version;
    const QString root = dir + QStringLiteral("/root");
    VmKernel kernel{version, root + QStringLiteral("/boot/vmlinuz-") + version,
                    root + QStringLiteral("/lib/modules/") + version, dir + QStringLiteral("/initramfs.cpio")};
    // The guest mounts lib/modules whole: modprobe looks for VERSION under it.
    const QString guestModules = root + QStringLiteral("/lib/modules");
    if (QFileInfo::exists(dir + QStringLiteral("/ready")) && QFileInfo::exists(kernel.initramfs)) {
        kernel.modules = guestModules;
        return kernel;
    }
    if (!QDir().mkpath(dir)) return smcr::fail(smcr::Errc::systemError, "cannot create " + dir.toStdString());
    QString deb = findDeb(dir, version);
    if (deb.isEmpty()) {
        report(QStringLiteral("downloading linux-image-%1 (apt-get download)").arg(version));
        auto got = runTool({QStringLiteral("apt-get"), QStringLiteral("download"), QStringLiteral("-q"),
                            QStringLiteral("linux-image-") + version},
                           dir, 600'000);
        if (!got) {
            return smcr::fail(smcr::Errc::notFound,
                              "apt-get download linux-image-" + version.toStdString() +
                                  " failed: " + got.error().message +
                                  " (run apt-get update; SMCLAB_VM_KERNEL names another linux-image version, or put "
                                  "its .deb in " +
                                  dir.toStdString() + ")");
        }
        deb = findDeb(dir, version);
        if (deb.isEmpty())
            return smcr::fail(smcr::Errc::notFound, "apt-get download left no linux-image-" + version.toStdString() +
                                                        " .deb in " + dir.toStdString());
    }
    report(QStringLiteral("unpacking %1").arg(QFileInfo(deb).fileName()));
    QDir(root).removeRecursively();
    if (auto x = runTool({QStringLiteral("dpkg-deb"), QStringLiteral("-x"), deb, root}, {}, 600'000); !x)
        return smcr::fail(x.error());
    if (!QFileInfo::exists(kernel.vmlinuz))
        return smcr::fail(smcr::Errc::notFound, deb.toStdString() + " has no boot/vmlinuz-" + version.toStdString());
    if (auto d = runTool({QStringLiteral("depmod"), QStringLiteral("-b"), root, version}, {}, 300'000); !d)
        return smcr::fail(d.error());
    report(QStringLiteral("building the initramfs"));
    auto initramfs = buildInitramfs(dir, kernel.modules);
    if (!initramfs) return smcr::fail(initramfs.error());
    QFile ready(dir + QStringLiteral("/ready"));
    if (!ready.open(QIODevice::WriteOnly)) return smcr::fail(smcr::Errc::systemError, "cannot write the ready mark");
    ready.write(deb.toUtf8() + '\n');
    kernel.modules = guestModules;
    return kernel;
}

}  // namespace smclab::lab::vm
