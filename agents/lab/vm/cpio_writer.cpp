#include "cpio_writer.h"

#include <sys/stat.h>

namespace smclab::lab::vm {

namespace {

void pad4(QByteArray* out) {
    while (out->size() % 4 != 0) out->append('\0');
}

QByteArray hex8(quint32 value) {
    return QByteArray::number(value, 16).rightJustified(8, '0').toUpper();
}

}  // namespace

void CpioWriter::addDirectory(const QString& path, quint32 mode) {
    addEntry(path, S_IFDIR | mode, {});
}

void CpioWriter::addFile(const QString& path, const QByteArray& contents, quint32 mode) {
    addEntry(path, S_IFREG | mode, contents);
}

void CpioWriter::addEntry(const QString& path, quint32 mode, const QByteArray& contents) {
    const QByteArray name = path.toUtf8();
    const bool trailer = name == "TRAILER!!!";
    // Fields in order: ino, mode, uid, gid, nlink, mtime, filesize,
    // devmajor, devminor, rdevmajor, rdevminor, namesize (with its NUL), check.
    m_out += "070701";
    m_out += hex8(trailer ? 0 : m_nextInode++);
    m_out += hex8(mode);
    m_out += hex8(0);
    m_out += hex8(0);
    m_out += hex8((mode & S_IFDIR) != 0 ? 2 : 1);
    m_out += hex8(0);
    m_out += hex8(static_cast<quint32>(contents.size()));
    for (int i = 0; i < 4; ++i) m_out += hex8(0);
    m_out += hex8(static_cast<quint32>(name.size() + 1));
    m_out += hex8(0);
    m_out += name;
    m_out += '\0';
    pad4(&m_out);
    m_out += contents;
    pad4(&m_out);
}

QByteArray CpioWriter::finish() {
    addEntry(QStringLiteral("TRAILER!!!"), 0, {});
    return m_out;
}

}  // namespace smclab::lab::vm
