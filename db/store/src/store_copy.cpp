#include "smclab/db/store_copy.h"

#include <QHash>

namespace smclab::db {

namespace {

QString campaignKey(const Campaign& c) {
    return c.name + QLatin1Char('\x1f') + c.createdAt.toUTC().toString(Qt::ISODateWithMs);
}

QString cellKey(const RunCell& cell) {
    return QStringList{cell.workload, cell.transport, cell.column, QString::number(cell.msgSize),
                       QString::number(cell.repetition)}
        .join(QLatin1Char('\x1f'));
}

template <typename T>
smcr::Status take(smcr::Result<T> result, T* out) {
    if (!result) return smcr::fail(result.error());
    *out = std::move(result).value();
    return {};
}

// Source agent id -> destination agent id (hosts by name, agents by address).
smcr::Result<QHash<qint64, qint64>> copyAgents(ResultStore& source, ResultStore& destination) {
    QList<Host> hosts;
    if (auto s = take(source.hosts(), &hosts); !s) return smcr::fail(s.error());
    QHash<qint64, qint64> hostIds;
    for (const Host& host : hosts) {
        auto id = destination.upsertHost(host.name, host.facts);
        if (!id) return smcr::fail(id.error());
        hostIds.insert(host.id, *id);
    }
    QList<Agent> agents;
    if (auto s = take(source.agents(), &agents); !s) return smcr::fail(s.error());
    QHash<qint64, qint64> agentIds;
    for (const Agent& agent : agents) {
        std::optional<qint64> hostId;
        if (agent.hostId && hostIds.contains(*agent.hostId)) hostId = hostIds.value(*agent.hostId);
        auto id = destination.upsertAgent(agent.address, hostId, agent.version, agent.capabilities);
        if (!id) return smcr::fail(id.error());
        agentIds.insert(agent.id, *id);
    }
    return agentIds;
}

std::optional<qint64> mapped(const QHash<qint64, qint64>& ids, const std::optional<qint64>& id) {
    if (!id || !ids.contains(*id)) return std::nullopt;
    return ids.value(*id);
}

smcr::Result<RunRecord> readRecord(ResultStore& source, const Run& run, qint64 destinationCampaign,
                                   const QHash<qint64, qint64>& agentIds) {
    RunRecord r;
    r.campaignId = destinationCampaign;
    r.cell = run.cell;
    r.clientAgentId = mapped(agentIds, run.clientAgentId);
    r.serverAgentId = mapped(agentIds, run.serverAgentId);
    r.startedAt = run.startedAt;
    r.finishedAt = run.finishedAt;
    RunFacts facts;
    for (const smcr::Status& s :
         {take(source.settings(run.id), &r.settings), take(source.hostFacts(run.id), &facts),
          take(source.results(run.id), &r.results), take(source.histograms(run.id), &r.histograms),
          take(source.samples(run.id), &r.samples), take(source.counters(run.id), &r.counters),
          take(source.settingChanges(run.id), &r.settingChanges)}) {
        if (!s) return smcr::fail(s.error());
    }
    r.clientFacts = facts.client;
    r.serverFacts = facts.server;
    return r;
}

}  // namespace

smcr::Result<CopyCounts> copyCampaigns(ResultStore& source, ResultStore& destination) {
    if (source.path() == destination.path()) {
        return smcr::fail(
            smcr::Errc::invalidArgument,
            QStringLiteral("source and destination are the same database (%1)").arg(source.path()).toStdString());
    }
    CopyCounts counts;
    auto agentIds = copyAgents(source, destination);
    if (!agentIds) return smcr::fail(agentIds.error());

    QList<Campaign> present;
    if (auto s = take(destination.listCampaigns(), &present); !s) return smcr::fail(s.error());
    QHash<QString, qint64> presentIds;
    for (const Campaign& c : present) presentIds.insert(campaignKey(c), c.id);

    QList<Campaign> campaigns;
    if (auto s = take(source.listCampaigns(), &campaigns); !s) return smcr::fail(s.error());
    // Oldest first, so the destination's ids follow the campaigns' order.
    std::reverse(campaigns.begin(), campaigns.end());
    for (const Campaign& campaign : campaigns) {
        QList<Run> runs;
        if (auto s = take(source.runs(campaign.id), &runs); !s) return smcr::fail(s.error());
        qint64 target = presentIds.value(campaignKey(campaign), 0);
        const bool isNew = target == 0;
        if (isNew) {
            QList<RunCell> cells;
            for (const Run& run : runs) cells.append(run.cell);
            auto imported = destination.importCampaign(campaign, cells);
            if (!imported) return smcr::fail(imported.error());
            target = *imported;
        }
        QList<Run> there;
        if (auto s = take(destination.runs(target), &there); !s) return smcr::fail(s.error());
        QHash<QString, RunStatus> statusThere;
        for (const Run& run : there) statusThere.insert(cellKey(run.cell), run.status);

        int copiedHere = 0;
        for (const Run& run : runs) {
            const RunStatus current = statusThere.value(cellKey(run.cell), RunStatus::planned);
            if (run.status == RunStatus::done && current != RunStatus::done) {
                auto record = readRecord(source, run, target, *agentIds);
                if (!record) return smcr::fail(record.error());
                if (auto recorded = destination.recordRun(*record); !recorded) return smcr::fail(recorded.error());
                counts.samplesCopied += record->samples.size();
                ++copiedHere;
            } else if (run.status == RunStatus::failed && current != RunStatus::done && current != RunStatus::failed) {
                // With what it saw before it failed (samples, counters), if anything.
                auto record = readRecord(source, run, target, *agentIds);
                if (!record) return smcr::fail(record.error());
                if (auto failed = destination.recordFailedRun(*record, run.error); !failed)
                    return smcr::fail(failed.error());
                counts.samplesCopied += record->samples.size();
                ++copiedHere;
            }
        }
        counts.runsCopied += copiedHere;
        if (isNew) {
            ++counts.campaignsCopied;
        } else if (copiedHere > 0) {
            ++counts.campaignsUpdated;
            // The source went further (a --resume there): its status follows.
            if (campaign.status == CampaignStatus::done || campaign.status == CampaignStatus::failed) {
                if (auto s = destination.updateCampaignStatus(target, campaign.status); !s)
                    return smcr::fail(s.error());
            }
        } else {
            ++counts.campaignsPresent;
        }
    }
    return counts;
}

}  // namespace smclab::db
