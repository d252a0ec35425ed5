// Run: progress and ETA of the running campaign, a live plot of throughput
// and latency per interval with the engine counters beside it, and the
// live settings panel. A toggle sends set_settings to the running agents;
// the agent's acknowledgement draws a marker on the plot at the time the
// change took effect. Pause, resume and stop act on the orchestrator.
#pragma once

#include <memory>

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QWidget>

#include "data/agent_endpoint.h"
#include "orchestrator/orchestrator.h"

class QGroupBox;
class QLabel;
class QLayout;
class QProgressBar;
class QPushButton;
class QTableView;

namespace smclab {
class AgentClient;
}

namespace smclab::gui {

class LabContext;
class LivePlot;
class SettingsPanel;
class CounterTableModel;
class CampaignWorker;

class RunPage : public QWidget {
    Q_OBJECT
public:
    explicit RunPage(LabContext* lab, QWidget* parent = nullptr);
    ~RunPage() override;

    // Runs a campaign (orchestrator JSON) on the agents, pairing them as
    // server, client, server, client...; one agent serves both roles.
    void startCampaign(const QJsonObject& campaign, const QList<AgentEndpoint>& agents);
    // Runs the cells of stored campaign `campaignId` that are not done yet
    // (stopped, interrupted by a crash, or failed) on `agents`.
    void resumeCampaign(qint64 campaignId, const QList<AgentEndpoint>& agents);
    void pause();
    // A paused campaign goes on; a stopped one asks to be resumed
    // (resumeRequested) on the agents connected now.
    void resume();
    void stop();
    // Gives up on a campaign that does not stop in time (quitting): the
    // worker is dropped, the campaign stays in the store for Resume.
    void abandon();
    bool isRunning() const;
    // "running", "paused", "pausing: finishing the runs in flight", ...
    QString stateText() const;
    // The last campaign was stopped or cut short and has cells left.
    bool canResumeStored() const;

    // Follows a run that was started on an agent outside a campaign: its
    // samples feed the plot and the live settings go to it.
    void monitorRun(AgentClient* client, const QString& runId);

    LivePlot* plot() const { return m_plot; }
    // The live settings of the run's transport: the engine's for smcr, the
    // kernel's net.smc sysctls for ksmc; other transports grey the engine's out.
    void showTransport(const QString& transport);
    // The settings shown now (the engine's, or the kernel's during a ksmc run).
    SettingsPanel* settingsPanel() const { return m_settings; }
    CounterTableModel* counters() const { return m_counters; }
    QString statusText() const;
    // The failed runs of the campaign in view, one line each with its
    // reason ("tcp_bw / SMC / 64 B / rep 1: agent ...: connection reset").
    QStringList failedRuns() const { return m_failedRuns; }
    // What the running agents last confirmed, or the cell's column settings
    // over the engine's defaults; the panel shows these unless a change is
    // on its way.
    QJsonObject settingsInForce() const { return m_acknowledged; }

signals:
    void settingsSent(const QJsonObject& settings);
    void campaignFinished(qint64 campaignId);
    void resumeRequested(qint64 campaignId);
    void runnerStateChanged(smclab::orchestrator::RunnerState state);
    // The status line (statusText()) changed: the run in flight, or the campaign's end.
    void statusTextChanged(const QString& text);

private:
    // The constructor's parts: the state, ETA and buttons row; the live
    // settings and engine counters beside the plot.
    QLayout* makeStatusRow();
    QWidget* makeSidePanel(QWidget* parent);

    struct Monitored {
        QPointer<AgentClient> client;
        QString runId;
    };

    // A new worker for a campaign on `agents`, its signals wired to this
    // page; false (error reported) when one runs already or no agent is there.
    bool prepareWorker(const QList<AgentEndpoint>& agents);
    void applySetting(const QString& name, const QJsonValue& value);
    void onSamples(const protocol::Samples& samples, bool throughputSide, bool latencySide);
    void onSettingsApplied(const QJsonObject& applied, qint64 runTimeMs);
    void onSettingsRefused(const QJsonObject& settings, const QString& error);
    // Puts the editors of `settings` back to the values in force.
    void revertSettings(const QJsonObject& settings);
    // A new run starts: the engine's defaults with `overrides` (its
    // column's settings) are in force.
    void showSettingsInForce(const QJsonObject& overrides);

    void onProgress(const orchestrator::Progress& progress);
    void onCellStarted(const orchestrator::CellInfo& cell);
    void onCellFinished(const orchestrator::CellInfo& cell, bool ok, const QString& error);
    void onCellResult(const orchestrator::CellInfo& cell, const protocol::RunResult& client);
    void setStatusText(const QString& text);
    void showFailedRuns();
    void onFinished(qint64 campaignId, orchestrator::RunnerState state);
    void setRunnerState(orchestrator::RunnerState state);
    void updateWidgets();

    LabContext* m_lab = nullptr;
    std::unique_ptr<CampaignWorker> m_worker;
    orchestrator::RunnerState m_state = orchestrator::RunnerState::idle;
    qint64 m_campaignId = 0;  // the campaign of the last start or resume
    QList<Monitored> m_monitored;
    QString m_cellWorkload;
    QHash<QString, QJsonObject> m_columnSettings;  // column label -> its settings

    QLabel* m_cellLabel = nullptr;
    QLabel* m_failedLabel = nullptr;  // the failed runs with their reasons
    QStringList m_failedRuns;
    QLabel* m_etaLabel = nullptr;
    QLabel* m_stateLabel = nullptr;
    QGroupBox* m_countersBox = nullptr;
    QString m_cellTransport;         // transport of the cell in flight
    double m_cellDurationSec = 0.0;  // warm-up + measured time of every cell
    QProgressBar* m_progress = nullptr;
    QPushButton* m_pauseButton = nullptr;
    QPushButton* m_resumeButton = nullptr;
    QPushButton* m_stopButton = nullptr;
    LivePlot* m_plot = nullptr;
    CounterTableModel* m_counters = nullptr;
    QTableView* m_counterView = nullptr;
    SettingsPanel* m_settings = nullptr;  // the one shown: m_engineSettings or m_kernelSettings
    SettingsPanel* m_engineSettings = nullptr;
    SettingsPanel* m_kernelSettings = nullptr;
    // What the agents last acknowledged (or the panel's defaults): a change
    // an agent refuses puts its editor back to this value.
    QJsonObject m_acknowledged;
    QLabel* m_hint = nullptr;
};

}  // namespace smclab::gui
