#include "lab_file.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSaveFile>

namespace smclab::lab {

namespace {

constexpr QFileDevice::Permissions kOwnerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;

}  // namespace

const LabHost* LabFile::find(const QString& host) const {
    for (const LabHost& h : hosts) {
        if (h.host == host) return &h;
    }
    return nullptr;
}

void LabFile::upsert(const LabHost& host) {
    for (LabHost& h : hosts) {
        if (h.host == host.host) {
            h = host;
            return;
        }
    }
    hosts.append(host);
}

QString resolveLabPath(const QString& explicitPath) {
    if (!explicitPath.isEmpty()) return explicitPath;
    const QString fromEnv = qEnvironmentVariable("SMCLAB_LAB");
    if (!fromEnv.isEmpty()) return fromEnv;
    return QDir::homePath() + QStringLiteral("/.config/smclab/lab.json");
}

std::optional<LabFile> loadLab(const QString& path, QString* why) {
    LabFile lab;
    QFile file(path);
    if (!file.exists()) return lab;
    if (!file.open(QIODevice::ReadOnly)) {
        *why = QStringLiteral("cannot read the lab file %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject()) {
        *why = QStringLiteral("the lab file %1 is not a JSON object: %2").arg(path, error.errorString());
        return std::nullopt;
    }
    for (const QJsonValue& value : doc.object().value(QStringLiteral("hosts")).toArray()) {
        const QJsonObject o = value.toObject();
        LabHost h;
        h.host = o.value(QStringLiteral("host")).toString();
        h.sshUser = o.value(QStringLiteral("ssh_user")).toString();
        h.sshPort = o.value(QStringLiteral("ssh_port")).toInt();
        h.remoteDir = o.value(QStringLiteral("remote_dir")).toString();
        h.agentPort = static_cast<quint16>(o.value(QStringLiteral("agent_port")).toInt());
        h.tokenFile = o.value(QStringLiteral("token_file")).toString();
        h.mode = o.value(QStringLiteral("mode")).toString(QStringLiteral("user"));
        h.address = o.value(QStringLiteral("address")).toString();
        h.vmDir = o.value(QStringLiteral("vm_dir")).toString();
        if (h.host.isEmpty() || h.agentPort == 0) {
            *why = QStringLiteral("the lab file %1 has a host without a name or agent port").arg(path);
            return std::nullopt;
        }
        lab.hosts.append(h);
    }
    return lab;
}

bool saveLab(const QString& path, const LabFile& lab, QString* why) {
    QJsonArray hosts;
    for (const LabHost& h : lab.hosts) {
        QJsonObject o{{"host", h.host},
                      {"ssh_user", h.sshUser},
                      {"ssh_port", h.sshPort},
                      {"remote_dir", h.remoteDir},
                      {"agent_port", h.agentPort},
                      {"token_file", h.tokenFile},
                      {"mode", h.mode}};
        if (!h.address.isEmpty()) o.insert(QStringLiteral("address"), h.address);
        if (!h.vmDir.isEmpty()) o.insert(QStringLiteral("vm_dir"), h.vmDir);
        hosts.append(o);
    }
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    const QByteArray bytes = QJsonDocument(QJsonObject{{"hosts", hosts}}).toJson();
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(kOwnerOnly) || file.write(bytes) != bytes.size() ||
        !file.commit()) {
        *why = QStringLiteral("cannot write the lab file %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

QByteArray freshAgentToken() {
    QByteArray raw(32, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(raw.data()), raw.size() / 4);
    return raw.toBase64();
}

QString tokenPathFor(const QString& labPath, const QString& host, QString* why) {
    const QString dir = QFileInfo(labPath).absoluteFilePath() + QStringLiteral(".tokens");
    if (!QDir().mkpath(dir) ||
        !QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner)) {
        *why = QStringLiteral("cannot make the token folder %1").arg(dir);
        return {};
    }
    QString safe = host;
    for (QChar& c : safe) {
        if (!c.isLetterOrNumber() && c != QLatin1Char('.') && c != QLatin1Char('-') && c != QLatin1Char('_'))
            c = QLatin1Char('_');
    }
    return dir + QLatin1Char('/') + safe + QStringLiteral(".token");
}

}  // namespace smclab::lab
