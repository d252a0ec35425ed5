#include "vmlab_session.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>

#include "agent_hello.h"
#include "vm_hosts.h"

namespace smclab::testing {

bool VmLabSession::open() {
    const QString path = qEnvironmentVariable("SMCLAB_VMLAB_FILE");
    if (path.isEmpty()) {
        m_why = QStringLiteral("SMCLAB_VMLAB_FILE is not set (ctest sets it: the vmlab fixture)");
        return false;
    }
    const auto lab = lab::loadLab(path, &m_why);
    if (!lab) return false;
    for (const char* name : {"vm1", "vm2"}) {
        const lab::LabHost* h = lab->find(QString::fromLatin1(name));
        if (h == nullptr || h->mode != QLatin1String("vm")) {
            m_why = QStringLiteral("%1 has no VM host %2: did vmlab_up fail?").arg(path, QLatin1String(name));
            return false;
        }
        if (!lab::vm::vmState(*h).running) {
            m_why = QStringLiteral("VM host %1 is not running:\n%2")
                        .arg(QLatin1String(name), lab::vm::vmState(*h).consoleTail);
            return false;
        }
        m_hosts << *h;
    }
    return true;
}

GuestRun VmLabSession::run(int index, const QString& script, int timeoutMs) const {
    GuestRun r;
    auto out = lab::vm::vmExec(m_hosts[index], script, timeoutMs);
    if (!out) {
        r.error = QString::fromStdString(out.error().message);
        return r;
    }
    r.ok = true;
    r.exitCode = out->exitCode;
    r.output = QString::fromUtf8(out->output);
    return r;
}

QJsonObject VmLabSession::kernelStats(int index) const {
    const GuestRun r = run(index, QStringLiteral("smclab ksmc stats --json"));
    if (!r.ok || r.exitCode != 0) return {};
    return QJsonDocument::fromJson(r.output.toUtf8()).object();
}

QMap<qint64, QJsonObject> VmLabSession::kernelLinkGroups(int index, bool* ok) const {
    QMap<qint64, QJsonObject> groups;
    const GuestRun r = run(index, QStringLiteral("smclab ksmc linkgroup --json"));
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(r.output.toUtf8(), &error);
    const bool read = r.ok && r.exitCode == 0 && error.error == QJsonParseError::NoError && doc.isArray();
    if (ok) *ok = read;
    if (!read) return groups;
    for (const QJsonValue& g : doc.array()) groups.insert(g[QLatin1String("id")].toInteger(), g.toObject());
    return groups;
}

qint64 VmLabSession::rxeCounter(int index, const QString& name) const {
    const GuestRun r = run(index, QStringLiteral("cat /sys/class/infiniband/rxe0/ports/1/hw_counters/") + name);
    if (!r.ok || r.exitCode != 0) return -1;
    bool ok = false;
    const qint64 v = r.output.trimmed().toLongLong(&ok);
    return ok ? v : -1;
}

smcr::Result<protocol::Hello> VmLabSession::hello(int index) const {
    const lab::LabHost& h = m_hosts[index];
    QFile tokenFile(h.tokenFile);
    const QString token =
        tokenFile.open(QIODevice::ReadOnly) ? QString::fromUtf8(tokenFile.readAll()).trimmed() : QString();
    return lab::fetchHello(h.dialHost(), h.agentPort, token, 10'000);
}

Outcome runSmclab(const QStringList& args, int timeoutMs) {
    QProcess p;
    p.start(qEnvironmentVariable("SMCLAB_BIN_DIR") + QStringLiteral("/smclab"), args);
    Outcome o;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        o.err = QStringLiteral("smclab %1: no end within %2 s").arg(args.join(' ')).arg(timeoutMs / 1000);
        return o;
    }
    o.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    o.out = QString::fromUtf8(p.readAllStandardOutput());
    o.err = QString::fromUtf8(p.readAllStandardError());
    return o;
}

bool writeText(const QString& path, const QString& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text.toUtf8()) == text.toUtf8().size();
}

qint64 fallbackCount(const QJsonObject& stats, const QString& side, quint32 reason) {
    qint64 n = 0;
    for (const QJsonValue& v : stats.value(QStringLiteral("fallbacks")).toArray()) {
        const QJsonObject f = v.toObject();
        if (f.value(QStringLiteral("side")).toString() == side &&
            static_cast<quint32>(f.value(QStringLiteral("reason")).toDouble()) == reason)
            n += static_cast<qint64>(f.value(QStringLiteral("count")).toDouble());
    }
    return n;
}

qint64 totalFallbacks(const QJsonObject& stats) {
    qint64 n = 0;
    for (const QJsonValue& v : stats.value(QStringLiteral("fallbacks")).toArray())
        n += static_cast<qint64>(v.toObject().value(QStringLiteral("count")).toDouble());
    return n;
}

}  // namespace smclab::testing
