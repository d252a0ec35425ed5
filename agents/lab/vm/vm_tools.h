// The host programs the VM lab runs (apt-get, dpkg-deb, depmod, busybox,
// qemu-system-x86_64), each run to completion with a deadline; a missing
// one is named with the Debian package that has it.
#pragma once

#include <smcr/result.h>

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace smclab::lab::vm {

struct ToolOutput {
    QByteArray stdoutBytes;
    QByteArray stderrBytes;
};

// Runs argv[0] with the rest as arguments in `workDir` ("" = the current
// one). A non-zero exit, a crash or the deadline is an error carrying the
// last lines of stderr.
smcr::Result<ToolOutput> runTool(const QStringList& argv, const QString& workDir, int timeoutMs);

// The Debian package that provides `program` ("" when not one of ours).
QString packageOf(const QString& program);

}  // namespace smclab::lab::vm
