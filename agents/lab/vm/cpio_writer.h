// A "newc" cpio archive, the format the kernel unpacks as an initramfs
// (Documentation/driver-api/early-userspace/buffer-format.rst): written
// here so building a VM's initramfs needs no cpio program.
#pragma once

#include <QByteArray>
#include <QString>

namespace smclab::lab::vm {

class CpioWriter {
public:
    void addDirectory(const QString& path, quint32 mode = 0755);
    void addFile(const QString& path, const QByteArray& contents, quint32 mode = 0644);
    // Ends the archive (the TRAILER!!! entry) and returns it.
    QByteArray finish();

private:
    void addEntry(const QString& path, quint32 mode, const QByteArray& contents);

    QByteArray m_out;
    quint32 m_nextInode = 1;
};

}  // namespace smclab::lab::vm
