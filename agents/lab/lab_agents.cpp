#include "lab_agents.h"

#include <QFile>

#include "orchestrator/campaign_json.h"

namespace smclab::lab {

namespace {

QString hostNames(const LabFile& lab) {
    QStringList names;
    for (const LabHost& h : lab.hosts) names << h.host;
    return names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", "));
}

const LabHost* findAgent(const LabFile& lab, const QString& host, quint16 port) {
    for (const LabHost& h : lab.hosts) {
        if ((h.host == host || h.dialHost() == host) && h.agentPort == port) return &h;
    }
    return nullptr;
}

}  // namespace

QString readTokenFile(const QString& path, const QString& owner, QString* why) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *why = QStringLiteral("%1: cannot read token file %2: %3").arg(owner, path, file.errorString());
        return {};
    }
    const QString token = QString::fromUtf8(file.readAll()).trimmed();
    if (token.isEmpty()) *why = QStringLiteral("%1: token file %2 is empty").arg(owner, path);
    return token;
}

std::optional<CampaignAgents> resolveCampaignAgents(const LabFile& lab, const QString& labPath,
                                                    const QStringList& entries, const QString& sharedToken,
                                                    QString* why) {
    CampaignAgents out;
    out.sharedToken = sharedToken;
    QStringList addresses;
    auto addLabHost = [&](const LabHost& h) -> bool {
        const QString address = QStringLiteral("%1:%2").arg(h.dialHost()).arg(h.agentPort);
        const QString token = readTokenFile(h.tokenFile, QStringLiteral("lab host %1").arg(h.host), why);
        if (token.isEmpty()) return false;
        out.tokenByAddress.insert(address, token);
        if (h.dialHost() != h.host) out.nameByAddress.insert(address, h.host);
        addresses << address;
        return true;
    };
    if (entries.isEmpty()) {
        if (lab.hosts.isEmpty()) {
            *why = QStringLiteral("the lab file %1 has no hosts (smclab lab deploy HOST adds one, or give --agents)")
                       .arg(labPath);
            return std::nullopt;
        }
        if (lab.hosts.size() > 1 && lab.hosts.size() % 2 != 0) {
            *why = QStringLiteral(
                       "the lab file %1 has %2 hosts (%3); without --agents they are paired as "
                       "server,client, so name the pairs with --agents")
                       .arg(labPath)
                       .arg(lab.hosts.size())
                       .arg(hostNames(lab));
            return std::nullopt;
        }
        for (const LabHost& h : lab.hosts) {
            if (!addLabHost(h)) return std::nullopt;
        }
        if (addresses.size() == 1) addresses << addresses.front();
    } else {
        for (const QString& raw : entries) {
            const QString entry = raw.trimmed();
            QString host;
            quint16 port = 0;
            if (orchestrator::splitHostPort(entry, &host, &port) && port != 0) {
                if (const LabHost* h = findAgent(lab, host, port)) {
                    if (!addLabHost(*h)) return std::nullopt;
                    continue;
                }
                if (sharedToken.isEmpty()) {
                    *why = QStringLiteral(
                               "agent %1 is not in the lab file %2 (hosts: %3) and no --token-file "
                               "gives its token")
                               .arg(entry, labPath, hostNames(lab));
                    return std::nullopt;
                }
                addresses << entry;
                continue;
            }
            const LabHost* h = lab.find(entry);
            if (h == nullptr) {
                *why = QStringLiteral(
                           "host %1 is not in the lab file %2 (hosts: %3); deploy it with smclab lab "
                           "deploy %1, or give HOST:PORT")
                           .arg(entry, labPath, hostNames(lab));
                return std::nullopt;
            }
            if (!addLabHost(*h)) return std::nullopt;
        }
        if (addresses.size() < 2 || addresses.size() % 2 != 0) {
            *why = QStringLiteral("--agents needs pairs: SERVER,CLIENT[,...] (lab host names or HOST:PORT)");
            return std::nullopt;
        }
    }
    for (int i = 0; i + 1 < addresses.size(); i += 2) out.pairs.push_back({addresses[i], addresses[i + 1]});
    return out;
}

}  // namespace smclab::lab
