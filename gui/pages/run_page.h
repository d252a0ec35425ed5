// Run: progress and ETA of the running campaign, a live plot of throughput
// and latency per interval with the engine counters beside it, and the
// live settings panel. A toggle sends set_settings to the running agents;
// the agent's acknowledgement draws a marker on the plot at the time the
// change took effect. Pause, resume and stop act on the orchestrator.
#pragma once

#include <memory>

#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QWidget>

#include "data/agent_endpoint.h"
#include "orchestrator/orchestrator.h"

class QLabel;
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
    void pause();
    void resume();
    void stop();
    bool isRunning() const;

    // Follows a run that was started on an agent outside a campaign: its
    // samples feed the plot and the live settings go to it.
    void monitorRun(AgentClient* client, const QString& runId);

    LivePlot* plot() const { return m_plot; }
    SettingsPanel* settingsPanel() const { return m_settings; }
    CounterTableModel* counters() const { return m_counters; }
    QString statusText() const;

signals:
    void settingsSent(const QJsonObject& settings);
    void campaignFinished(qint64 campaignId);

private:
    struct Monitored {
        QPointer<AgentClient> client;
        QString runId;
    };

    void applySetting(const QString& name, const QJsonValue& value);
    void onSamples(const protocol::Samples& samples, bool throughputSide, bool latencySide);
    void onSettingsApplied(const QJsonObject& applied, qint64 runTimeMs);
    void onProgress(const orchestrator::Progress& progress);
    void onCellStarted(const orchestrator::CellInfo& cell);
    void onFinished(qint64 campaignId, orchestrator::RunnerState state);
    void setRunnerState(orchestrator::RunnerState state);
    void updateWidgets();

    LabContext* m_lab = nullptr;
    std::unique_ptr<CampaignWorker> m_worker;
    orchestrator::RunnerState m_state = orchestrator::RunnerState::idle;
    QList<Monitored> m_monitored;
    QString m_cellWorkload;

    QLabel* m_cellLabel = nullptr;
    QLabel* m_etaLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_pauseButton = nullptr;
    QPushButton* m_resumeButton = nullptr;
    QPushButton* m_stopButton = nullptr;
    LivePlot* m_plot = nullptr;
    CounterTableModel* m_counters = nullptr;
    QTableView* m_counterView = nullptr;
    SettingsPanel* m_settings = nullptr;
    // What the agents last acknowledged (or the panel's defaults): a change
    // an agent refuses puts its editor back to this value.
    QJsonObject m_acknowledged;
    QLabel* m_hint = nullptr;
};

}  // namespace smclab::gui
