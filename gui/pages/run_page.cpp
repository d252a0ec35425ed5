#include "pages/run_page.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "app/lab_context.h"
#include "data/live_setting.h"
#include "models/counter_table_model.h"
#include "orchestrator/campaign_json.h"
#include "orchestrator/run_record.h"
#include "protocol/agent_client.h"
#include "run/campaign_worker.h"
#include "smclab/db/result_store.h"
#include "tool_workloads.h"
#include "widgets/live_plot.h"
#include "widgets/settings_panel.h"

namespace smclab::gui {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

RunPage::RunPage(LabContext* lab, QWidget* parent) : QWidget(parent), m_lab(lab) {
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(makeStatusRow());
    m_progress = new QProgressBar(this);
    m_progress->setFormat(tr("no campaign running"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    layout->addWidget(m_progress);
    // Which runs failed and why, not only how many: the reason of the
    // latest, the others in the tooltip (and all in Results).
    m_failedLabel = new QLabel(this);
    m_failedLabel->setObjectName(QStringLiteral("failedRuns"));
    m_failedLabel->setWordWrap(false);
    m_failedLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_failedLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_failedLabel->setStyleSheet(QStringLiteral("QLabel { background: #f8d7da; color: #222; padding: 3px; }"));
    m_failedLabel->hide();
    layout->addWidget(m_failedLabel);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    m_plot = new LivePlot(splitter);
    QWidget* side = makeSidePanel(splitter);
    splitter->addWidget(m_plot);
    splitter->addWidget(side);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    layout->addWidget(m_hint);

    connect(m_pauseButton, &QPushButton::clicked, this, &RunPage::pause);
    connect(m_resumeButton, &QPushButton::clicked, this, &RunPage::resume);
    connect(m_stopButton, &QPushButton::clicked, this, &RunPage::stop);
    m_acknowledged = m_settings->values();
    connect(m_engineSettings, &SettingsPanel::settingChanged, this, &RunPage::applySetting);
    connect(m_kernelSettings, &SettingsPanel::settingChanged, this, &RunPage::applySetting);
    updateWidgets();
}

QLayout* RunPage::makeStatusRow() {
    auto* top = new QHBoxLayout;
    m_cellLabel = new QLabel(tr("No campaign running"), this);
    QFont bold = m_cellLabel->font();
    bold.setBold(true);
    m_cellLabel->setFont(bold);
    top->addWidget(m_cellLabel, 1);
    m_etaLabel = new QLabel(this);
    top->addWidget(m_etaLabel);
    m_stateLabel = new QLabel(this);
    m_stateLabel->setObjectName(QStringLiteral("runState"));
    m_stateLabel->setMinimumWidth(
        m_stateLabel->fontMetrics().horizontalAdvance(QStringLiteral("pausing (runs in flight)")) + 16);
    m_stateLabel->setAlignment(Qt::AlignCenter);
    top->addWidget(m_stateLabel);
    m_pauseButton = new QPushButton(tr("&Pause"), this);
    m_resumeButton = new QPushButton(tr("Res&ume"), this);
    m_stopButton = new QPushButton(tr("S&top"), this);
    m_pauseButton->setToolTip(tr("Finish the runs in flight, then wait (Ctrl+P)"));
    m_resumeButton->setToolTip(tr("Go on with the next runs; after Stop, run the cells not done yet (Ctrl+Shift+R)"));
    m_stopButton->setToolTip(tr("Abandon the runs in flight; the campaign stays resumable (Ctrl+.)"));
    top->addWidget(m_pauseButton);
    top->addWidget(m_resumeButton);
    top->addWidget(m_stopButton);
    return top;
}

QWidget* RunPage::makeSidePanel(QWidget* parent) {
    auto* side = new QWidget(parent);
    side->setMaximumWidth(440);  // the plot gets the rest of the width
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    auto* settingsBox = new QGroupBox(tr("Live settings (applied to the running agents)"), side);
    auto* settingsLayout = new QVBoxLayout(settingsBox);
    // The engine's settings for smcr runs, the kernel's net.smc sysctls for
    // ksmc runs: the box shows the set the running cell's transport takes.
    m_engineSettings = new SettingsPanel(liveSettings(), settingsBox);
    m_kernelSettings = new SettingsPanel(kernelLiveSettings(), settingsBox);
    m_kernelSettings->setObjectName(QStringLiteral("kernelSettings"));
    m_kernelSettings->hide();
    m_settings = m_engineSettings;
    settingsLayout->addWidget(m_engineSettings);
    settingsLayout->addWidget(m_kernelSettings);
    sideLayout->addWidget(settingsBox);
    auto* countersBox = new QGroupBox(tr("Engine counters"), side);
    m_countersBox = countersBox;
    auto* countersLayout = new QVBoxLayout(countersBox);
    m_counters = new CounterTableModel(this);
    m_counterView = new QTableView(countersBox);
    m_counterView->setModel(m_counters);
    m_counterView->verticalHeader()->hide();
    m_counterView->verticalHeader()->setDefaultSectionSize(m_counterView->fontMetrics().height() + 4);
    m_counterView->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_counterView->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_counterView->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    countersLayout->addWidget(m_counterView);
    sideLayout->addWidget(countersBox, 1);
    return side;
}

RunPage::~RunPage() = default;

bool RunPage::isRunning() const {
    using orchestrator::RunnerState;
    return m_state == RunnerState::connecting || m_state == RunnerState::running || m_state == RunnerState::pausing ||
           m_state == RunnerState::paused || m_state == RunnerState::stopping;
}

namespace {

// Pairs (server, client) from consecutive agents; a single agent plays both.
std::vector<orchestrator::AgentPair> agentPairs(const QList<AgentEndpoint>& agents) {
    std::vector<orchestrator::AgentPair> pairs;
    for (int i = 0; i < agents.size(); i += 2) {
        const QString server = agents[i].address;
        const QString client = i + 1 < agents.size() ? agents[i + 1].address : server;
        pairs.push_back({server, client});
    }
    return pairs;
}

}  // namespace

bool RunPage::prepareWorker(const QList<AgentEndpoint>& agents) {
    if (isRunning()) {
        m_lab->reportError(tr("A campaign is already running; stop it first."));
        return false;
    }
    if (agents.isEmpty()) {
        m_lab->reportError(tr("No agent connected: add hosts on the Hosts page or start the local lab (Ctrl+L)."));
        return false;
    }
    AgentConnectOptions options;
    options.token = agents.front().token;
    options.tls = agents.front().tls;
    options.ignoreSslErrors = agents.front().tls;  // lab certificates are self-signed
    // The wire is the local lab's when every agent of the campaign is one of
    // its agents; a mix records no lab wire (TCP then crosses the hosts' network).
    QJsonObject wire = agents.front().wire;
    for (const AgentEndpoint& agent : agents) {
        if (agent.wire != wire) wire = QJsonObject();
    }
    m_worker = std::make_unique<CampaignWorker>(m_lab->databasePath(), options, wire);
    connect(m_worker.get(), &CampaignWorker::stateChanged, this, &RunPage::setRunnerState);
    connect(m_worker.get(), &CampaignWorker::campaignStarted, this, [this](qint64 id) { m_campaignId = id; });
    connect(m_worker.get(), &CampaignWorker::progressChanged, this, &RunPage::onProgress);
    connect(m_worker.get(), &CampaignWorker::cellStarted, this, &RunPage::onCellStarted);
    connect(m_worker.get(), &CampaignWorker::cellResult, this, &RunPage::onCellResult);
    connect(m_worker.get(), &CampaignWorker::cellFinished, this, &RunPage::onCellFinished);
    connect(m_worker.get(), &CampaignWorker::samplesReceived, this,
            [this](const orchestrator::CellInfo&, const protocol::Samples& samples, bool fromServer) {
                // Bandwidth is counted at the receiver (qperf), latency at the client.
                onSamples(samples, fromServer, !fromServer);
            });
    connect(m_worker.get(), &CampaignWorker::settingsApplied, this,
            [this](const orchestrator::CellInfo&, const QJsonObject& applied, qint64 runTimeMs) {
                onSettingsApplied(applied, runTimeMs);
            });
    connect(m_worker.get(), &CampaignWorker::settingsRefused, this, &RunPage::onSettingsRefused);
    connect(m_worker.get(), &CampaignWorker::message, m_lab, &LabContext::reportInfo);
    connect(m_worker.get(), &CampaignWorker::errorOccurred, m_lab, &LabContext::reportError);
    connect(m_worker.get(), &CampaignWorker::finished, this, &RunPage::onFinished);
    m_plot->clearRun();
    m_counters->clear();
    m_failedRuns.clear();
    showFailedRuns();
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(tr("connecting..."));
    m_etaLabel->clear();
    return true;
}

void RunPage::startCampaign(const QJsonObject& campaign, const QList<AgentEndpoint>& agents) {
    if (isRunning()) {
        m_lab->reportError(tr("A campaign is already running; stop it first."));
        return;
    }
    auto spec = orchestrator::campaignFromJson(campaign);
    if (!spec) {
        m_lab->reportError(tr("The campaign is not valid: %1").arg(QString::fromStdString(spec.error().message)));
        return;
    }
    orchestrator::CampaignSpec run = spec.value();
    run.agents = agentPairs(agents);
    if (!prepareWorker(agents)) return;
    const QJsonObject wire = agents.front().wire;
    if (!wire.isEmpty()) {
        // The notes and reports say what TCP crossed, as the demo's do.
        const QString note = wire.value(QLatin1String("note")).toString();
        run.description += (run.description.isEmpty() ? QString() : QStringLiteral(". ")) + tr("Wire: %1").arg(note);
        const QString link = run.transportOptions.value(QLatin1String("link")).toString(QStringLiteral("ideal"));
        const QString labLink = wire.value(QLatin1String("model")).toString();
        const bool smcColumns = std::any_of(run.columns.begin(), run.columns.end(), [](const auto& column) {
            return column.transport == QLatin1String("smcr");
        });
        if (smcColumns && link != labLink) {
            m_lab->reportInfo(tr("The local lab's wire models %1 but the campaign's SMC link is %2: restart the "
                                 "local lab with %2 so that TCP and SMC cross the same link.")
                                  .arg(labLink, link));
        }
    }
    m_columnSettings.clear();
    for (const orchestrator::ColumnSpec& column : run.columns) m_columnSettings.insert(column.label, column.settings);
    m_cellDurationSec = static_cast<double>(run.durationMs + run.warmupMs) / 1000.0;
    m_campaignId = 0;
    setStatusText(tr("%1: connecting to %2 agent(s)...").arg(run.name).arg(agents.size()));
    setRunnerState(orchestrator::RunnerState::connecting);
    m_worker->start(run);
}

void RunPage::resumeCampaign(qint64 campaignId, const QList<AgentEndpoint>& agents) {
    if (isRunning()) {
        m_lab->reportError(tr("A campaign is already running; stop it first."));
        return;
    }
    db::ResultStore* store = m_lab->store();
    if (store == nullptr) return;  // the context reported why
    const auto stored = store->campaign(campaignId);
    if (!stored) {
        m_lab->reportError(
            tr("Cannot resume campaign %1: %2").arg(campaignId).arg(QString::fromStdString(stored.error().message)));
        return;
    }
    const auto spec = orchestrator::campaignFromJson(stored->spec);
    if (!spec) {
        m_lab->reportError(tr("Cannot resume campaign %1: its stored plan is unreadable: %2")
                               .arg(campaignId)
                               .arg(QString::fromStdString(spec.error().message)));
        return;
    }
    if (!prepareWorker(agents)) return;
    m_columnSettings.clear();
    for (const orchestrator::ColumnSpec& column : spec->columns) m_columnSettings.insert(column.label, column.settings);
    m_cellDurationSec = static_cast<double>(spec->durationMs + spec->warmupMs) / 1000.0;
    m_campaignId = campaignId;
    setStatusText(
        tr("Campaign %1 (%2): resuming on %3 agent(s)...").arg(campaignId).arg(spec->name).arg(agents.size()));
    setRunnerState(orchestrator::RunnerState::connecting);
    m_worker->resume(campaignId, agentPairs(agents));
}

void RunPage::pause() {
    if (m_worker && isRunning()) m_worker->pause();
}

bool RunPage::canResumeStored() const {
    using orchestrator::RunnerState;
    return m_campaignId > 0 && (m_state == RunnerState::stopped || m_state == RunnerState::failed);
}

void RunPage::resume() {
    using orchestrator::RunnerState;
    if (m_worker && (m_state == RunnerState::paused || m_state == RunnerState::pausing)) {
        m_worker->unpause();
        return;
    }
    if (canResumeStored()) emit resumeRequested(m_campaignId);
}

void RunPage::stop() {
    if (m_worker && isRunning()) m_worker->stop();
    for (const Monitored& m : m_monitored) {
        if (m.client) m.client->stopRun(m.runId);
    }
}

void RunPage::abandon() {
    if (!m_worker) return;
    m_worker.reset();  // its destructor asks the orchestrator to stop and joins the thread
    setRunnerState(orchestrator::RunnerState::stopped);
}

void RunPage::monitorRun(AgentClient* client, const QString& runId) {
    m_monitored.append({client, runId});
    m_plot->clearRun();
    m_counters->clear();
    setStatusText(tr("Run %1 on %2").arg(runId, client->url().toString()));
    connect(client, &AgentClient::samplesReceived, this, [this, runId](const protocol::Samples& samples) {
        if (samples.runId == runId) onSamples(samples, true, true);
    });
    connect(client, &AgentClient::settingsApplied, this, [this, runId](const protocol::SettingsApplied& applied) {
        if (applied.runId == runId) onSettingsApplied(applied.applied, applied.atMs);
    });
    connect(client, &AgentClient::resultReceived, this, [this, runId](const protocol::RunResult& result) {
        if (result.runId != runId) return;
        setStatusText(tr("Run %1: %2").arg(runId, protocol::runStateName(result.state)));
        m_monitored.removeIf([&runId](const Monitored& m) { return m.runId == runId; });
        updateWidgets();
    });
    updateWidgets();
}

void RunPage::applySetting(const QString& name, const QJsonValue& value) {
    const QJsonObject settings{{name, value}};
    if (!m_settings->unavailableReason().isEmpty()) {
        // The editors are disabled then; a change through the API is not sent either.
        revertSettings(settings);
        m_lab->reportInfo(
            tr("%1 was not sent: %2").arg(settingChangeLabel(name, value), m_settings->unavailableReason()));
        return;
    }
    bool anyMonitored = false;
    for (const Monitored& m : m_monitored) anyMonitored = anyMonitored || !m.client.isNull();
    const bool campaignRuns = m_worker && m_state == orchestrator::RunnerState::running;
    if ((campaignRuns || anyMonitored) && m_acknowledged.contains(name) &&
        m_acknowledged.value(name) == m_settings->values().value(name)) {
        m_lab->reportInfo(tr("%1 is already in force; nothing sent.").arg(settingChangeLabel(name, value)));
        return;
    }
    bool sent = false;
    if (m_worker && m_state == orchestrator::RunnerState::running) {
        m_worker->setSettings(settings);
        sent = true;
    }
    for (const Monitored& m : m_monitored) {
        if (!m.client) continue;
        m.client->setSettings(m.runId, settings, [this, name](const QJsonObject& reply) {
            if (reply.value(QStringLiteral("type")).toString() == QLatin1String(protocol::type::kError)) {
                // The agent's own words (they carry the engine's reason),
                // and the editor shows what still runs.
                m_lab->reportError(
                    tr("The agent refused %1: %2").arg(name, reply.value(QStringLiteral("message")).toString()));
                revertSettings(QJsonObject{{name, QJsonValue()}});
            }
        });
        sent = true;
    }
    if (sent) {
        emit settingsSent(settings);
        // Only the agent's acknowledgement says it took effect (a marker and
        // "Applied ..."); until then it is a request.
        m_lab->reportInfo(tr("Requested %1; waiting for the agents to apply it").arg(settingChangeLabel(name, value)));
    } else {
        // Nothing takes the change (a campaign between states, or no run at
        // all): the editor keeps showing what is in force.
        revertSettings(settings);
        m_lab->reportInfo(tr("Nothing is running: %1 was not sent. Live settings go to the agents of a "
                             "running campaign; a column's own settings belong in the Campaign editor.")
                              .arg(settingChangeLabel(name, value)));
    }
}

void RunPage::showTransport(const QString& transport) {
    m_cellTransport = transport;
    SettingsPanel* panel = transport == QLatin1String("ksmc") ? m_kernelSettings : m_engineSettings;
    if (panel != m_settings) {
        m_settings->hide();
        panel->show();
        m_settings = panel;
        m_acknowledged = panel->values();
    }
    if (transport.isEmpty() || transport == QLatin1String("smcr") || transport == QLatin1String("ksmc")) {
        m_settings->setUnavailableReason(QString());
    } else if (transport == QLatin1String("tcp")) {
        m_settings->setUnavailableReason(
            tr("This run uses kernel TCP: the SMC-R engine's settings do not apply to it. They come back "
               "with the next SMC-R run."));
    } else {
        m_settings->setUnavailableReason(
            tr("This run uses %1: these are settings of the lab's SMC-R engine (libsmcr), which this "
               "transport does not use.")
                .arg(transport));
    }
}

void RunPage::onSettingsRefused(const QJsonObject& settings, const QString& error) {
    QStringList labels;
    for (auto it = settings.begin(); it != settings.end(); ++it)
        labels.append(settingChangeLabel(it.key(), it.value()));
    m_lab->reportError(tr("The agents refused %1: %2").arg(labels.join(QStringLiteral(", ")), error));
    revertSettings(settings);
}

void RunPage::revertSettings(const QJsonObject& settings) {
    for (auto it = settings.begin(); it != settings.end(); ++it) {
        if (m_acknowledged.contains(it.key())) m_settings->setValue(it.key(), m_acknowledged.value(it.key()));
    }
}

void RunPage::showSettingsInForce(const QJsonObject& overrides) {
    for (const LiveSetting& setting : m_settings->settings())
        m_settings->setValue(setting.name, overrides.value(setting.name).isUndefined() ? setting.defaultValue
                                                                                       : overrides.value(setting.name));
    m_acknowledged = m_settings->values();
}

void RunPage::onSamples(const protocol::Samples& samples, bool throughputSide, bool latencySide) {
    const double t = static_cast<double>(samples.tMs) / 1000.0;
    // MB/s as qperf prints it: 10^6 bytes per second.
    const double mbps = throughputSide && samples.bytes > 0 ? samples.throughputBps / 8.0 / 1e6 : kNaN;
    const double latencyUs = latencySide && samples.latency.present ? samples.latency.meanUs : kNaN;
    m_plot->addSample(t, mbps, latencyUs);
    if (!samples.counters.isEmpty() && (latencySide || m_counters->rowCount() == 0)) {
        m_counters->update(samples.counters, samples.intervalMs);
    }
}

void RunPage::onSettingsApplied(const QJsonObject& applied, qint64 runTimeMs) {
    QStringList labels;
    for (auto it = applied.begin(); it != applied.end(); ++it) labels.append(settingChangeLabel(it.key(), it.value()));
    // Reflect what the agent now runs with, without sending it back.
    for (auto it = applied.begin(); it != applied.end(); ++it) {
        m_settings->setValue(it.key(), it.value());
        m_acknowledged.insert(it.key(), m_settings->values().value(it.key()));
    }
    // Two runs (server and client) acknowledge the same change; one marker.
    const double t = static_cast<double>(runTimeMs) / 1000.0;
    const QString label = labels.join(QStringLiteral(", "));
    for (const LivePlot::Marker& m : m_plot->markers()) {
        if (m.label == label && std::abs(m.timeSec - t) < 0.5) return;
    }
    m_plot->addMarker(t, label);
    m_lab->reportInfo(tr("Applied %1 at %2 s").arg(label).arg(t, 0, 'f', 2));
}

void RunPage::onProgress(const orchestrator::Progress& progress) {
    // Failed runs are finished too (the bar reaches the end); the text
    // tells them apart.
    m_progress->setRange(0, std::max(1, progress.totalCells));
    m_progress->setValue(std::min(progress.totalCells, progress.doneCells + progress.failedCells));
    m_progress->setFormat(progress.failedCells > 0
                              ? tr("%1 / %2 runs done, %3 failed")
                                    .arg(progress.doneCells)
                                    .arg(progress.totalCells)
                                    .arg(progress.failedCells)
                              : tr("%1 / %2 runs done").arg(progress.doneCells).arg(progress.totalCells));
    m_etaLabel->setText(tr("elapsed %1, ETA %2%3")
                            .arg(orchestrator::formatDurationMs(progress.elapsedMs))
                            .arg(orchestrator::formatDurationMs(progress.etaMs))
                            .arg(progress.failedCells > 0 ? tr(", %1 failed").arg(progress.failedCells) : QString()));
}

void RunPage::onCellStarted(const orchestrator::CellInfo& cell) {
    m_cellWorkload = cell.workload;
    setStatusText(tr("%1 / %2 / %3 B / rep %4")
                      .arg(cell.workloadLabel, cell.columnLabel)
                      .arg(cell.cell.sizeBytes)
                      .arg(cell.cell.repetition + 1));
    // Every cell is its own run with its own clock: the plot starts over,
    // and the run starts with its column's settings (live changes made to
    // the previous cell ended with it).
    m_plot->clearRun();
    m_plot->setExpectedDurationSec(m_cellDurationSec);
    // A tool that prints nothing while it runs leaves the plot empty: say
    // so, rather than an empty plot that looks broken.
    if (workloads::reportsOnlyAtEnd(cell.workload.toStdString())) {
        m_plot->setEmptyNote(
            cell.transport == QLatin1String("smcr")
                ? tr("%1 prints its figures only when it ends.\nLive samples come from the preload's engine "
                     "counters\nonce its connections run over libsmcr.")
                      .arg(cell.workload)
                : tr("%1 prints its figures only when it ends:\nno live samples over %2.\nIts result is in "
                     "Results when the run ends.")
                      .arg(cell.workload, cell.transport));
    }
    m_countersBox->setTitle(tr("Engine counters (this run)"));
    showTransport(cell.transport);
    showSettingsInForce(m_columnSettings.value(cell.columnLabel));
}

void RunPage::onCellResult(const orchestrator::CellInfo& cell, const protocol::RunResult& client) {
    if (!workloads::reportsOnlyAtEnd(cell.workload.toStdString())) return;
    // The tool's own figures for the whole run, as stored in Results: one
    // point at the run's end on the axis each belongs to; a rate the plot
    // has no axis for is named in the note.
    const QMap<QString, double> metrics = orchestrator::resultMetrics(client.summary);
    const double mbps = metrics.value(QStringLiteral("bw_mbps"), kNaN);
    const double latencyUs = metrics.value(QStringLiteral("latency_us"), kNaN);
    QStringList figures;
    if (!std::isnan(mbps)) figures << tr("%L1 MB/s").arg(mbps, 0, 'f', 2);
    if (!std::isnan(latencyUs)) figures << tr("%L1 us").arg(latencyUs, 0, 'f', 2);
    if (metrics.contains(QStringLiteral("rps")))
        figures << tr("%L1 requests/s").arg(metrics.value(QStringLiteral("rps")), 0, 'f', 0);
    if (figures.isEmpty()) return;
    const QString seen = m_plot->emptyNote();
    const QString said = std::isnan(mbps) && std::isnan(latencyUs)
                             ? tr("%1 printed at its end: %2.").arg(cell.workload, figures.join(QStringLiteral(", ")))
                             : tr("The point at the end is what %1 printed when it ended: %2.")
                                   .arg(cell.workload, figures.join(QStringLiteral(", ")));
    const double endSec = static_cast<double>(std::max<qint64>(client.durationMs, 0)) / 1000.0;
    m_plot->addEndOfRunFigure(std::max(endSec, m_plot->lastTimeSec()), mbps, latencyUs,
                              seen.isEmpty() ? said : seen + QLatin1Char('\n') + said);
}

void RunPage::onCellFinished(const orchestrator::CellInfo& cell, bool ok, const QString& error) {
    if (ok) return;
    m_failedRuns.append(tr("%1 / %2 / %3 B / rep %4: %5")
                            .arg(cell.workloadLabel, cell.columnLabel)
                            .arg(cell.cell.sizeBytes)
                            .arg(cell.cell.repetition + 1)
                            .arg(error.isEmpty() ? tr("no reason given") : error));
    showFailedRuns();
}

void RunPage::showFailedRuns() {
    m_failedLabel->setVisible(!m_failedRuns.isEmpty());
    if (m_failedRuns.isEmpty()) return;
    const QString latest = m_failedRuns.back();
    m_failedLabel->setText(QStringLiteral("\u2691 ") +
                           (m_failedRuns.size() == 1
                                ? tr("Failed: %1").arg(latest)
                                : tr("%1 runs failed; latest: %2").arg(m_failedRuns.size()).arg(latest)));
    m_failedLabel->setToolTip(m_failedRuns.join(QLatin1Char('\n')));
}

void RunPage::setStatusText(const QString& text) {
    m_cellLabel->setText(text);
    emit statusTextChanged(text);
}

void RunPage::onFinished(qint64 campaignId, orchestrator::RunnerState state) {
    if (campaignId > 0) m_campaignId = campaignId;
    setRunnerState(state);
    showTransport(QString());
    showSettingsInForce({});
    const QString name = QString::fromLatin1(orchestrator::runnerStateName(state));
    setStatusText(campaignId > 0 ? tr("Campaign %1 %2").arg(campaignId).arg(name) : tr("Campaign %1").arg(name));
    // What stays on screen is a record now, not a live view.
    if (m_plot->sampleCount() > 0 || !m_plot->emptyNote().isEmpty())
        m_plot->setCaption(tr("Last run of the campaign (%1; nothing runs now)").arg(name));
    m_countersBox->setTitle(tr("Engine counters (last run, ended)"));
    m_counters->freeze();
    if (campaignId > 0) emit campaignFinished(campaignId);
}

void RunPage::setRunnerState(orchestrator::RunnerState state) {
    m_state = state;
    updateWidgets();
    emit runnerStateChanged(state);
}

QString RunPage::stateText() const {
    using orchestrator::RunnerState;
    switch (m_state) {
        case RunnerState::idle:
            return m_monitored.isEmpty() ? tr("idle") : tr("running");
        case RunnerState::connecting:
            return tr("connecting");
        case RunnerState::running:
            return tr("running");
        case RunnerState::pausing:
            return tr("pausing (runs in flight)");
        case RunnerState::paused:
            return tr("paused");
        case RunnerState::stopping:
            return tr("stopping");
        case RunnerState::stopped:
            return tr("stopped");
        case RunnerState::finished:
            return tr("finished");
        case RunnerState::failed:
            return tr("failed");
    }
    return QStringLiteral("?");
}

QString RunPage::statusText() const {
    return m_cellLabel->text();
}

void RunPage::updateWidgets() {
    using orchestrator::RunnerState;
    const bool monitoring = !m_monitored.isEmpty();
    m_pauseButton->setEnabled(m_state == RunnerState::running);
    m_resumeButton->setEnabled(m_state == RunnerState::paused || m_state == RunnerState::pausing || canResumeStored());
    m_stopButton->setEnabled(isRunning() || monitoring);
    // The state in words and colour: a paused campaign must not look like a running one.
    const bool paused = m_state == RunnerState::paused || m_state == RunnerState::pausing;
    m_stateLabel->setText(stateText());
    m_stateLabel->setStyleSheet(
        paused ? QStringLiteral("QLabel { background: #fff3cd; color: #5c4400; font-weight: bold; padding: 2px 6px; }")
        : (isRunning() || monitoring)
            ? QStringLiteral("QLabel { background: #d4edda; color: #155724; font-weight: bold; padding: 2px 6px; }")
            : QStringLiteral("QLabel { color: #555; padding: 2px 6px; }"));
    if (paused && !m_etaLabel->text().isEmpty() && !m_etaLabel->text().endsWith(tr(" (paused)")))
        m_etaLabel->setText(m_etaLabel->text() + tr(" (paused)"));
    if (isRunning() || monitoring) {
        m_hint->setText(
            tr("Settings changed here go to the running agents at once; each change is marked on the "
               "plot when an agent confirms it."));
    } else {
        m_hint->setText(
            tr("Start a campaign from the Campaign page (Ctrl+R). The settings below are the engine's "
               "defaults; changing them while a run is in flight applies them live."));
    }
}

}  // namespace smclab::gui
