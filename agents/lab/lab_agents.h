// `smclab run --lab FILE`: the agent pairs and per-agent tokens of a
// campaign taken from the lab file that `smclab lab deploy` wrote, so a
// deployed lab runs campaigns without retyping addresses or tokens.
//
// With --agents, each entry is either a lab host's name (its agent port and
// token come from the lab file) or HOST:PORT (the lab's token when the lab
// has that agent, else --token-file's). Without --agents the lab's hosts
// are paired in file order (server, client, ...); a lab of one host serves
// both sides of every cell.
#pragma once

#include <optional>
#include <vector>

#include <QHash>
#include <QString>
#include <QStringList>

#include "lab_file.h"
#include "orchestrator/campaign_spec.h"

namespace smclab::lab {

struct CampaignAgents {
    std::vector<orchestrator::AgentPair> pairs;
    QHash<QString, QString> tokenByAddress;  // "HOST:PORT" -> bearer token
    QHash<QString, QString> nameByAddress;   // "HOST:PORT" -> lab host name, where the two differ
    QString sharedToken;                     // --token-file's, for agents not in the lab ("" = none)
};

// `entries`: --agents split at commas (empty: the whole lab). `sharedToken`:
// the token of --token-file, or "". Every error names the host it is about.
std::optional<CampaignAgents> resolveCampaignAgents(const LabFile& lab, const QString& labPath,
                                                    const QStringList& entries, const QString& sharedToken,
                                                    QString* why);

// A token file's text, trimmed; "" with *why (naming `owner`) when unreadable or empty.
QString readTokenFile(const QString& path, const QString& owner, QString* why);

}  // namespace smclab::lab
