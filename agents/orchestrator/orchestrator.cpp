#include "orchestrator.h"

#include <memory>
#include <utility>

#include <QMap>
#include <QRandomGenerator>

#include "campaign_json.h"
#include "host_load.h"
#include "run_record.h"
#include "runner_lock.h"
#include "smclab/db/result_store.h"
#include "workload_params.h"

namespace smclab::orchestrator {

namespace {

// A server serves "this long at most": it gets the client's time plus a
// margin and is stopped as soon as the client reports.
constexpr qint64 kServerMarginMs = 15'000;

QString statusText(const smcr::Error& error) {
    return QString::fromStdString(error.message);
}

}  // namespace

const char* runnerStateName(RunnerState state) {
    switch (state) {
        case RunnerState::idle:
            return "idle";
        case RunnerState::connecting:
            return "connecting";
        case RunnerState::running:
            return "running";
        case RunnerState::pausing:
            return "pausing";
        case RunnerState::paused:
            return "paused";
        case RunnerState::stopping:
            return "stopping";
        case RunnerState::stopped:
            return "stopped";
        case RunnerState::finished:
            return "finished";
        case RunnerState::failed:
            return "failed";
    }
    return "invalid";
}

Orchestrator::Orchestrator(db::ResultStore& store, QObject* parent) : QObject(parent), m_store(store) {
    qRegisterMetaType<smclab::orchestrator::Progress>();
    qRegisterMetaType<smclab::orchestrator::CellInfo>();
    qRegisterMetaType<smclab::orchestrator::RunnerState>();
    qRegisterMetaType<smclab::orchestrator::CellOutcome>();
    m_sessionTag = QString::number(QRandomGenerator::global()->generate() & 0xffffff, 36);
    m_progressTimer.setInterval(1000);
    connect(&m_progressTimer, &QTimer::timeout, this, &Orchestrator::emitProgress);
}

Orchestrator::~Orchestrator() {
    for (Pair& pair : m_pairs) {
        if (pair.runner) pair.runner->abort();
    }
    for (AgentLink* link : m_links) link->disconnectNow();
}

smcr::Status Orchestrator::prepare(const CampaignSpec& spec, const std::vector<AgentPair>& agents) {
    if (m_state != RunnerState::idle)
        return smcr::fail(smcr::Errc::invalidState, "this orchestrator already ran a campaign; use a new one");
    CampaignSpec copy = spec;
    if (!agents.empty()) copy.agents = agents;
    if (copy.agents.empty())
        return smcr::fail(smcr::Errc::invalidArgument, "agents: no agent pair given (server and client HOST:PORT)");
    if (const auto errors = validateCampaign(copy); !errors.empty())
        return smcr::fail(smcr::Errc::invalidArgument, joinErrors(errors).toStdString());
    m_spec = std::move(copy);
    m_cells = expandCells(m_spec);

    QMap<QString, AgentLink*> byAddress;
    auto linkFor = [&](const QString& address) {
        if (AgentLink* existing = byAddress.value(address)) return existing;
        AgentConnectOptions options = m_connectOptions;
        if (auto token = m_tokenByAddress.constFind(address); token != m_tokenByAddress.cend()) options.token = *token;
        auto* link = new AgentLink(address, options, this);
        link->setName(m_nameByAddress.value(address));
        byAddress.insert(address, link);
        m_links.push_back(link);
        return link;
    };
    for (const AgentPair& agentPair : m_spec.agents) {
        Pair pair;
        pair.server = linkFor(agentPair.server);
        pair.client = linkFor(agentPair.client);
        m_pairs.push_back(pair);
    }
    return {};
}

smcr::Status Orchestrator::start(const CampaignSpec& spec) {
    if (smcr::Status s = prepare(spec, {}); !s) return s;
    m_resuming = false;
    for (const Cell& cell : m_cells) m_queue.push_back(cell.index);
    connectAll();
    return {};
}

smcr::Status Orchestrator::resume(qint64 campaignId, const std::vector<AgentPair>& agents) {
    auto campaign = m_store.campaign(campaignId);
    if (!campaign) return smcr::fail(campaign.error());
    auto spec = campaignFromJson(campaign->spec);
    if (!spec)
        return smcr::fail(smcr::Errc::invalidArgument, QStringLiteral("campaign %1 has an unreadable spec: %2")
                                                           .arg(campaignId)
                                                           .arg(statusText(spec.error()))
                                                           .toStdString());
    if (smcr::Status s = prepare(*spec, agents); !s) return s;
    auto pending = m_store.pendingCells(campaignId);
    if (!pending) return smcr::fail(pending.error());
    std::vector<bool> queued(m_cells.size(), false);
    for (const db::RunCell& runCell : *pending) {
        const int index = findCell(m_spec, m_cells, runCell);
        if (index < 0) {
            emit message(QStringLiteral("campaign %1: stored cell %2/%3/%4/%5 is not in its spec; skipped")
                             .arg(campaignId)
                             .arg(runCell.workload, runCell.column)
                             .arg(runCell.msgSize)
                             .arg(runCell.repetition));
            continue;
        }
        if (queued[static_cast<size_t>(index)]) continue;
        queued[static_cast<size_t>(index)] = true;
    }
    // Plan order, whatever order the store lists them in.
    for (const Cell& cell : m_cells) {
        if (queued[static_cast<size_t>(cell.index)]) m_queue.push_back(cell.index);
    }
    m_campaignId = campaignId;
    m_resuming = true;
    m_doneBefore = static_cast<int>(m_cells.size() - m_queue.size());
    connectAll();
    return {};
}

void Orchestrator::connectAll() {
    setState(RunnerState::connecting);
    m_elapsed.start();
    m_linksPending = static_cast<int>(m_links.size());
    for (AgentLink* link : m_links) {
        connect(link, &AgentLink::ready, this, &Orchestrator::onInitialLinkReady, Qt::SingleShotConnection);
        connect(link, &AgentLink::failed, this, &Orchestrator::onInitialLinkFailed, Qt::SingleShotConnection);
        emit message(QStringLiteral("connecting to agent %1").arg(link->label()));
        link->connectNow();
    }
}

void Orchestrator::onInitialLinkReady() {
    if (m_state != RunnerState::connecting) return;
    if (--m_linksPending > 0) return;
    for (AgentLink* link : m_links) {
        disconnect(link, &AgentLink::ready, this, nullptr);
        disconnect(link, &AgentLink::failed, this, nullptr);
        if (smcr::Status s = registerAgent(link); !s) return fatal(statusText(s.error()));
    }
    beginRunning();
}

void Orchestrator::onInitialLinkFailed(const QString& why) {
    if (m_state != RunnerState::connecting) return;
    fatal(why);
}

smcr::Status Orchestrator::registerAgent(AgentLink* link) {
    const protocol::Hello& hello = link->hello();
    const protocol::HostFacts& host = hello.capabilities.host;
    db::HostFacts facts = hostFacts(hello, {}, QString());
    const QString hostName = host.hostname.isEmpty() ? link->hostAddress().toString() : host.hostname;
    auto hostId = m_store.upsertHost(hostName, facts);
    if (!hostId) return smcr::fail(hostId.error());
    auto agentId = m_store.upsertAgent(link->address(), *hostId, hello.agentVersion, hello.capabilities.toJson());
    if (!agentId) return smcr::fail(agentId.error());
    link->storeAgentId = *agentId;
    QStringList missing;
    for (const protocol::Availability& transport : hello.capabilities.transports) {
        if (!transport.available) missing << QStringLiteral("%1 (%2)").arg(transport.name, transport.reason);
    }
    emit message(QStringLiteral("agent %1: %2, protocol %3%4")
                     .arg(link->label(), hostName, hello.protocolVersion,
                          missing.isEmpty() ? QString()
                                            : QStringLiteral("; unavailable: ") + missing.join(QStringLiteral(", "))));
    return {};
}

void Orchestrator::beginRunning() {
    if (!m_resuming) {
        db::NewCampaign campaign;
        campaign.name = m_spec.name;
        campaign.preset = m_spec.preset;
        campaign.spec = campaignToJson(m_spec);
        campaign.notes = m_spec.description;
        for (const Cell& cell : m_cells) campaign.cells.append(toRunCell(m_spec, cell));
        auto id = m_store.createCampaign(campaign);
        if (!id) return fatal(statusText(id.error()));
        m_campaignId = *id;
    }
    m_runnerLock = takeRunnerLock(m_store, m_campaignId);
    if (!m_runnerLock && campaignRunnerPresence(m_store, m_campaignId) == RunnerPresence::alive) {
        // Another live process runs it: leave its status alone.
        const qint64 busy = m_campaignId;
        m_campaignId = 0;
        return fatal(QStringLiteral("campaign %1 is being run by another process (%2)")
                         .arg(busy)
                         .arg(runnerLockName(m_store, busy)));
    }
    if (smcr::Status s = m_store.updateCampaignStatus(m_campaignId, db::CampaignStatus::running); !s)
        return fatal(statusText(s.error()));
    m_sessionStarted = QDateTime::currentDateTimeUtc();
    if (m_resuming) noteResume();
    emit campaignStarted(m_campaignId);
    emit message(QStringLiteral("campaign %1 (%2): %3 cells to run of %4, estimated %5")
                     .arg(m_campaignId)
                     .arg(m_spec.name)
                     .arg(m_queue.size())
                     .arg(m_cells.size())
                     .arg(formatDurationMs(estimateCampaignMs(m_spec, static_cast<int>(m_queue.size())))));
    setState(RunnerState::running);
    m_progressTimer.start();
    emitProgress();
    for (size_t i = 0; i < m_pairs.size(); ++i) dispatch(static_cast<int>(i));
}

void Orchestrator::noteResume() {
    // The notes (shown with the campaign and in its report) say that it was
    // resumed, when, and on what: the runs after it may have crossed
    // another lab's wire than the ones before.
    QStringList agents;
    for (const Pair& pair : m_pairs)
        agents << QStringLiteral("%1 -> %2").arg(pair.client->label(), pair.server->label());
    QString line = QStringLiteral("Resumed %1 UTC: %2 of %3 cells on agents %4")
                       .arg(m_sessionStarted.toString(QStringLiteral("yyyy-MM-dd HH:mm")))
                       .arg(m_queue.size())
                       .arg(m_cells.size())
                       .arg(agents.join(QStringLiteral(", ")));
    if (const QString wire = m_wire.value(QLatin1String("note")).toString(); !wire.isEmpty())
        line += QStringLiteral("; wire: %1").arg(wire);
    if (smcr::Status s = m_store.appendCampaignNotes(m_campaignId, line); !s)
        emit message(QStringLiteral("database: %1").arg(statusText(s.error())));
}

void Orchestrator::dispatch(int pairIndex) {
    Pair& pair = m_pairs[static_cast<size_t>(pairIndex)];
    if (pair.runner || pair.reconnecting || pair.waiting) return;
    if (m_state != RunnerState::running || m_queue.empty()) return settle();
    const int cellIndex = m_queue.front();
    m_queue.pop_front();
    if (!pair.server->isReady() || !pair.client->isReady()) return reconnectPair(pairIndex, cellIndex);
    runCell(pairIndex, cellIndex);
}

void Orchestrator::reconnectPair(int pairIndex, int cellIndex) {
    // Both links of the pair, one after the other; the first failure fails
    // the cell (a dead agent refuses at once, so a campaign that goes on
    // without it does not wait long per cell).
    Pair& pair = m_pairs[static_cast<size_t>(pairIndex)];
    pair.reconnecting = true;
    pair.cellIndex = cellIndex;
    AgentLink* link = !pair.server->isReady() ? pair.server : (!pair.client->isReady() ? pair.client : nullptr);
    if (link == nullptr || m_state != RunnerState::running) {
        pair.reconnecting = false;
        if (m_state != RunnerState::running) {
            m_queue.push_front(cellIndex);
            return settle();
        }
        return runCell(pairIndex, cellIndex);
    }
    emit message(QStringLiteral("reconnecting to agent %1").arg(link->label()));
    auto* context = new QObject(this);
    // One outcome per attempt: a link can report failed twice for one
    // attempt (connection closed, then no hello in time), and the context
    // is only deleted later; without this the cell was failed twice and
    // counted as two runs.
    auto handled = std::make_shared<bool>(false);
    connect(link, &AgentLink::ready, context, [this, link, context, pairIndex, cellIndex, handled] {
        if (std::exchange(*handled, true)) return;
        context->deleteLater();
        if (!link->storeAgentId) {
            if (smcr::Status s = registerAgent(link); !s) emit message(statusText(s.error()));
        }
        reconnectPair(pairIndex, cellIndex);
    });
    connect(link, &AgentLink::failed, context, [this, pairIndex, cellIndex, context, handled](const QString& why) {
        if (std::exchange(*handled, true)) return;
        context->deleteLater();
        m_pairs[static_cast<size_t>(pairIndex)].reconnecting = false;
        recordFailure(pairIndex, cellIndex, why, true);
    });
    if (!link->isConnecting()) link->connectNow();
}

void Orchestrator::runCell(int pairIndex, int cellIndex) {
    Pair& pair = m_pairs[static_cast<size_t>(pairIndex)];
    const Cell& cell = m_cells[static_cast<size_t>(cellIndex)];
    const WorkloadSpec& workload = m_spec.workloads[static_cast<size_t>(cell.workloadIndex)];
    const ColumnSpec& column = m_spec.columns[static_cast<size_t>(cell.columnIndex)];

    // Run ids must be unique among an agent's active runs: the session tag
    // keeps a resumed campaign apart from runs of the interrupted process
    // that an agent is still winding down, the attempt number a retried
    // cell apart from a server run still ending.
    const QString runBase =
        QStringLiteral("c%1-%2-%3.%4").arg(m_campaignId).arg(cellIndex).arg(m_sessionTag).arg(++m_attempts);
    protocol::StartRun serverRun;
    serverRun.runId = runBase + QStringLiteral("-s");
    serverRun.workload = workload.workload;
    serverRun.transport = column.transport;
    serverRun.params = serverParams(workload, column, cell.sizeBytes);
    serverRun.settings = column.settings;
    if (column.transport == QLatin1String("smcr")) serverRun.transportOptions = m_spec.transportOptions;
    serverRun.durationMs = m_spec.warmupMs + m_spec.durationMs + kServerMarginMs;
    serverRun.sampleIntervalMs = m_spec.sampleIntervalMs;

    protocol::StartRun clientRun;
    clientRun.runId = runBase + QStringLiteral("-c");
    clientRun.workload = workload.workload;
    clientRun.transport = column.effectiveClientTransport();
    clientRun.params = clientParams(workload, column, cell.sizeBytes);
    // Settings belong to the column's transport: a mixed column (plain TCP
    // clients against a libsmcr listener) sets them on the listener only,
    // and its clientSettings on the client (libsmcr's against a kernel server).
    clientRun.settings = clientRun.transport == column.transport ? column.settings : column.clientSettings;
    if (clientRun.transport == QLatin1String("smcr")) clientRun.transportOptions = m_spec.transportOptions;
    clientRun.durationMs = m_spec.durationMs;
    clientRun.warmupMs = m_spec.warmupMs;
    clientRun.sampleIntervalMs = m_spec.sampleIntervalMs;

    if (smcr::Status s = m_store.markRunStarted(m_campaignId, toRunCell(m_spec, cell), pair.client->storeAgentId,
                                                pair.server->storeAgentId);
        !s) {
        // A lost database connection would lose this run too: end here
        // (the finished runs are committed; resume runs the rest).
        if (s.error().code == smcr::Errc::connectionReset)
            return fatal(QStringLiteral("cannot start the run: %1").arg(statusText(s.error())));
        emit message(QStringLiteral("database: %1").arg(statusText(s.error())));
    }
    auto* runner = new CellRunner(pair.server, pair.client, serverRun, clientRun, this);
    pair.runner = runner;
    pair.cellIndex = cellIndex;
    const CellInfo info = cellInfo(cellIndex, pairIndex);
    connect(runner, &CellRunner::samplesReceived, this,
            [this, info](const protocol::Samples& samples, bool fromServer) {
                emit samplesReceived(info, samples, fromServer);
            });
    connect(runner, &CellRunner::settingsApplied, this, [this, info](const protocol::SettingsApplied& applied) {
        emit settingsApplied(info, applied.applied, QDateTime::fromMSecsSinceEpoch(applied.atWallMs, Qt::UTC),
                             applied.atMs);
    });
    connect(runner, &CellRunner::finished, this, [this, pairIndex, cellIndex](const CellOutcome& outcome) {
        onCellFinished(pairIndex, cellIndex, outcome);
    });
    emit cellStarted(info);
    emitProgress();
    runner->start();
}

RecordInputs Orchestrator::recordInputs(const Pair& pair, const Cell& cell) const {
    const ColumnSpec& column = m_spec.columns[static_cast<size_t>(cell.columnIndex)];
    RecordInputs inputs;
    inputs.campaignId = m_campaignId;
    inputs.spec = &m_spec;
    inputs.cell = cell;
    inputs.clientAgentId = pair.client->storeAgentId;
    inputs.serverAgentId = pair.server->storeAgentId;
    inputs.clientFacts = hostFacts(pair.client->hello(), m_spec.transportOptions, column.effectiveClientTransport());
    inputs.serverFacts = hostFacts(pair.server->hello(), m_spec.transportOptions, column.transport);
    addWireFacts(m_wire, m_spec.transportOptions, inputs.clientFacts);
    addWireFacts(m_wire, m_spec.transportOptions, inputs.serverFacts);
    addEndsFacts(inputs.serverFacts, inputs.clientFacts);
    // Which runner session ran it: a resumed campaign's report says
    // when it was resumed and on what (db/report campaign_report.cpp).
    inputs.clientFacts.insert(QLatin1String(kSessionStartedFact), m_sessionStarted.toString(Qt::ISODate));
    inputs.clientFacts.insert(QLatin1String(kSessionResumedFact),
                              m_resuming ? QStringLiteral("yes") : QStringLiteral("no"));
    return inputs;
}

void Orchestrator::onCellFinished(int pairIndex, int cellIndex, const CellOutcome& outcome) {
    Pair& pair = m_pairs[static_cast<size_t>(pairIndex)];
    if (pair.runner) pair.runner->deleteLater();
    pair.runner = nullptr;
    pair.cellIndex = -1;
    const CellInfo info = cellInfo(cellIndex, pairIndex);
    const Cell& cell = m_cells[static_cast<size_t>(cellIndex)];

    switch (outcome.kind) {
        case CellOutcome::Kind::finished: {
            const RecordInputs inputs = recordInputs(pair, cell);
            const QString clientHost = inputs.clientFacts.value(QStringLiteral("host"));
            const bool sameHost =
                !clientHost.isEmpty() && clientHost == inputs.serverFacts.value(QStringLiteral("host"));
            const HostLoad load =
                judgeHostLoad(outcome.client.hostState, outcome.server.hostState, sameHost, m_spec.quietHost);
            const CellOutcome* kept = &outcome;
            if (load.busy) emit message(QStringLiteral("cell %1 ran on a busy host: %2").arg(info.key, load.reason));
            if (m_spec.quietHost.repeatBusy > 0) {
                BusyRetry& retry = m_busyRetries[cellIndex];
                const double other = load.otherCpuPct.value_or(0.0);
                if (!retry.quietest || other < retry.quietestOtherCpuPct) {
                    retry.quietest = outcome;
                    retry.quietestOtherCpuPct = other;
                }
                if (load.busy && retry.attempts < m_spec.quietHost.repeatBusy && m_state == RunnerState::running) {
                    // Run it again behind the cells already queued, after a
                    // pause on this pair, and keep the quietest run.
                    ++retry.attempts;
                    emit message(QStringLiteral("running cell %1 again (%2 of %3, quietHost.repeatBusy)")
                                     .arg(info.key)
                                     .arg(retry.attempts)
                                     .arg(m_spec.quietHost.repeatBusy));
                    m_cellWallMsSum += outcome.startedAt.msecsTo(outcome.finishedAt);
                    ++m_cellWallCount;
                    m_queue.push_back(cellIndex);
                    emitProgress();
                    if (m_spec.quietHost.waitMs > 0) {
                        pair.waiting = true;
                        QTimer::singleShot(m_spec.quietHost.waitMs, this, [this, pairIndex] {
                            m_pairs[static_cast<size_t>(pairIndex)].waiting = false;
                            if (m_state == RunnerState::running) dispatch(pairIndex);
                        });
                        return;
                    }
                    return dispatch(pairIndex);
                }
                kept = &*retry.quietest;
            }
            auto runId = m_store.recordRun(buildRunRecord(inputs, *kept));
            m_busyRetries.erase(cellIndex);
            if (!runId) return fatal(QStringLiteral("cannot record the run: %1").arg(statusText(runId.error())));
            ++m_done;
            m_cellWallMsSum += outcome.startedAt.msecsTo(outcome.finishedAt);
            ++m_cellWallCount;
            emit cellResult(info, outcome.client);
            emit cellFinished(info, true, QString());
            break;
        }
        case CellOutcome::Kind::failed:
            m_cellWallMsSum += outcome.startedAt.msecsTo(outcome.finishedAt);
            ++m_cellWallCount;
            // What the run showed live before it failed stays with it.
            if (outcomeHasData(outcome)) {
                return recordFailure(pairIndex, cellIndex, outcome.error, outcome.agentLost,
                                     buildFailedRunRecord(recordInputs(pair, cell), outcome));
            }
            return recordFailure(pairIndex, cellIndex, outcome.error, outcome.agentLost);
        case CellOutcome::Kind::aborted:
        case CellOutcome::Kind::invalid:
            // Stopped by us: the cell stays pending in the store.
            m_queue.push_front(cellIndex);
            break;
    }
    emitProgress();
    dispatch(pairIndex);
}

void Orchestrator::recordFailure(int pairIndex, int cellIndex, const QString& error, bool agentLost,
                                 const std::optional<db::RunRecord>& seen) {
    const CellInfo info = cellInfo(cellIndex, pairIndex);
    auto failed = seen ? m_store.recordFailedRun(*seen, error)
                       : m_store.markRunFailed(m_campaignId, toRunCell(m_spec, info.cell), error);
    if (!failed) return fatal(QStringLiteral("cannot record the failed run: %1").arg(statusText(failed.error())));
    ++m_failed;
    emit message(QStringLiteral("cell %1 failed: %2").arg(info.key, error));
    emit cellFinished(info, false, error);
    if (agentLost && m_spec.onAgentLoss == AgentLossPolicy::pause && m_state == RunnerState::running) {
        emit message(QStringLiteral("an agent was lost; pausing the campaign (onAgentLoss: pause)"));
        setState(RunnerState::pausing);
    }
    emitProgress();
    dispatch(pairIndex);
}

db::CampaignStatus Orchestrator::finalStatus() {
    // A campaign that ran to its end without a single run finishing measured
    // nothing: it failed, whatever its runs' reasons.
    const auto campaign = m_store.campaign(m_campaignId);
    if (campaign && campaign->runsDone == 0 && campaign->runsFailed > 0) return db::CampaignStatus::failed;
    return db::CampaignStatus::done;
}

void Orchestrator::settle() {
    if (activeRunners() > 0) return;
    for (const Pair& pair : m_pairs) {
        if (pair.reconnecting) return;
    }
    switch (m_state) {
        case RunnerState::running:
            if (!m_queue.empty()) return;
            m_progressTimer.stop();
            if (smcr::Status s = m_store.updateCampaignStatus(m_campaignId, finalStatus()); !s)
                emit message(QStringLiteral("database: %1").arg(statusText(s.error())));
            for (AgentLink* link : m_links) link->disconnectNow();
            setState(RunnerState::finished);
            emitProgress();
            emit finished(m_campaignId, m_state);
            break;
        case RunnerState::pausing:
            if (smcr::Status s = m_store.updateCampaignStatus(m_campaignId, db::CampaignStatus::paused); !s)
                emit message(QStringLiteral("database: %1").arg(statusText(s.error())));
            setState(RunnerState::paused);
            emitProgress();
            break;
        case RunnerState::stopping:
            m_progressTimer.stop();
            if (m_campaignId > 0) {
                if (smcr::Status s = m_store.updateCampaignStatus(m_campaignId, db::CampaignStatus::paused); !s)
                    emit message(QStringLiteral("database: %1").arg(statusText(s.error())));
            }
            for (AgentLink* link : m_links) link->disconnectNow();
            setState(RunnerState::stopped);
            emitProgress();
            emit finished(m_campaignId, m_state);
            break;
        default:
            break;
    }
}

void Orchestrator::pause() {
    if (m_state != RunnerState::running) return;
    setState(RunnerState::pausing);
    settle();
}

void Orchestrator::unpause() {
    if (m_state != RunnerState::paused && m_state != RunnerState::pausing) return;
    if (smcr::Status s = m_store.updateCampaignStatus(m_campaignId, db::CampaignStatus::running); !s)
        emit message(QStringLiteral("database: %1").arg(statusText(s.error())));
    setState(RunnerState::running);
    for (size_t i = 0; i < m_pairs.size(); ++i) dispatch(static_cast<int>(i));
}

void Orchestrator::stop() {
    switch (m_state) {
        case RunnerState::connecting:
            for (AgentLink* link : m_links) link->disconnectNow();
            setState(RunnerState::stopped);
            emit finished(m_campaignId, m_state);
            return;
        case RunnerState::running:
        case RunnerState::pausing:
        case RunnerState::paused:
            setState(RunnerState::stopping);
            for (Pair& pair : m_pairs) {
                if (pair.runner) pair.runner->abort();
            }
            settle();
            return;
        default:
            return;
    }
}

smcr::Status Orchestrator::setSettings(const QJsonObject& settings) {
    if (settings.isEmpty()) return smcr::fail(smcr::Errc::invalidArgument, "settings: nothing to apply");
    int applied = 0;
    for (Pair& pair : m_pairs) {
        if (!pair.runner || !pair.runner->isRunning()) continue;
        ++applied;
        pair.runner->applySettings(settings, [this, settings](const QString& error) {
            if (!error.isEmpty()) {
                emit message(QStringLiteral("live settings: %1").arg(error));
                emit settingsFailed(settings, error);
            }
        });
    }
    if (applied == 0) return smcr::fail(smcr::Errc::invalidState, "no cell is running; settings not applied");
    return {};
}

void Orchestrator::fatal(const QString& error) {
    m_progressTimer.stop();
    for (Pair& pair : m_pairs) {
        if (pair.runner) {
            pair.runner->disconnect(this);
            pair.runner->abort();
        }
    }
    for (AgentLink* link : m_links) link->disconnectNow();
    if (m_campaignId > 0) (void)m_store.updateCampaignStatus(m_campaignId, db::CampaignStatus::paused);
    emit errorOccurred(error);
    setState(RunnerState::failed);
    emit finished(m_campaignId, m_state);
}

void Orchestrator::setState(RunnerState state) {
    if (m_state == state) return;
    m_state = state;
    if (state == RunnerState::finished || state == RunnerState::stopped || state == RunnerState::failed)
        m_runnerLock.reset();
    emit stateChanged(state);
}

int Orchestrator::activeRunners() const {
    int count = 0;
    for (const Pair& pair : m_pairs) count += pair.runner ? 1 : 0;
    return count;
}

int Orchestrator::estimatedCellMs() const {
    if (m_cellWallCount > 0) return static_cast<int>(m_cellWallMsSum / m_cellWallCount);
    return static_cast<int>(estimateCellMs(m_spec));
}

Progress Orchestrator::progress() const {
    Progress p;
    p.totalCells = static_cast<int>(m_cells.size());
    p.doneCells = m_doneBefore + m_done;
    p.failedCells = m_failed;
    p.runningCells = activeRunners();
    p.remainingCells = static_cast<int>(m_queue.size());
    p.elapsedMs = m_elapsed.isValid() ? m_elapsed.elapsed() : 0;
    const int pairs = std::max<int>(1, static_cast<int>(m_pairs.size()));
    // Cells in flight count as half done on average.
    const double cellsLeft = p.remainingCells + 0.5 * p.runningCells;
    p.etaMs = static_cast<qint64>(cellsLeft * estimatedCellMs() / pairs);
    return p;
}

void Orchestrator::emitProgress() {
    emit progressChanged(progress());
}

CellInfo Orchestrator::cellInfo(int cellIndex, int pairIndex) const {
    CellInfo info;
    info.campaignId = m_campaignId;
    info.cell = m_cells[static_cast<size_t>(cellIndex)];
    info.key = info.cell.key(m_spec);
    const WorkloadSpec& workload = m_spec.workloads[static_cast<size_t>(info.cell.workloadIndex)];
    const ColumnSpec& column = m_spec.columns[static_cast<size_t>(info.cell.columnIndex)];
    info.workloadLabel = workload.label;
    info.workload = workload.workload;
    info.columnLabel = column.label;
    info.transport = column.transport;
    info.pairIndex = pairIndex;
    return info;
}

}  // namespace smclab::orchestrator
