// The booted VM lab of the vmlab fixture, for the tests: its hosts from
// the lab file, commands run in them, the kernel's SMC counters read there.
#pragma once

#include <smcr/result.h>

#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>

#include "lab_file.h"
#include "protocol/hello.h"

namespace smclab::testing {

struct GuestRun {
    bool ok = false;  // it ran to its end (whatever its exit code)
    int exitCode = -1;
    QString output;
    QString error;  // why it did not run
};

class VmLabSession {
public:
    // Reads $SMCLAB_VMLAB_FILE; false (with why()) when the lab is not up.
    bool open();
    const QString& why() const { return m_why; }

    const lab::LabHost& host(int index) const { return m_hosts[index]; }  // 0: vm1, 1: vm2
    static QString linkAddress(int index) { return QStringLiteral("10.77.0.%1").arg(index + 1); }

    GuestRun run(int index, const QString& script, int timeoutMs = 120'000) const;
    // `smclab ksmc stats --json` in the guest; empty on failure.
    QJsonObject kernelStats(int index) const;
    // `smclab ksmc linkgroup --json` in the guest, keyed by link group id;
    // empty on failure (check ok).
    QMap<qint64, QJsonObject> kernelLinkGroups(int index, bool* ok = nullptr) const;
    // A counter of rxe0's port 1 (hw_counters), -1 when unreadable.
    qint64 rxeCounter(int index, const QString& name) const;
    // The hello of the host's agent, as a controller gets it (its token, its forwarded port).
    smcr::Result<protocol::Hello> hello(int index) const;

private:
    QList<lab::LabHost> m_hosts;
    QString m_why;
};

// smclab on this host ($SMCLAB_BIN_DIR), run to its end or `timeoutMs`.
struct Outcome {
    int exitCode = -1;  // -1: it crashed or did not end in time
    QString out;
    QString err;
};
Outcome runSmclab(const QStringList& args, int timeoutMs);

bool writeText(const QString& path, const QString& text);

// The fallbacks of `stats` (a kernelStats object) for one side and reason.
qint64 fallbackCount(const QJsonObject& stats, const QString& side, quint32 reason);
// Sum of every fallback count of `stats`.
qint64 totalFallbacks(const QJsonObject& stats);

}  // namespace smclab::testing
