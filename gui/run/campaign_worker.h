// Runs a campaign off the UI thread: a worker thread owns the results
// store it writes to and the orchestrator driving the agents; the run page
// talks to it only through queued calls and signals, so database writes and
// agent I/O never block the window.
#pragma once

#include <memory>

#include <QJsonObject>
#include <QObject>
#include <QThread>

#include "orchestrator/orchestrator.h"

namespace smclab::gui {

class CampaignWorker : public QObject {
    Q_OBJECT
public:
    // `wire`: the local lab's record of what TCP and SMC cross
    // (Orchestrator::setWire); empty for agents on lab hosts.
    CampaignWorker(const QString& databasePath, const AgentConnectOptions& options, const QJsonObject& wire = {});
    ~CampaignWorker() override;

    // Each call is queued to the worker thread.
    void start(const orchestrator::CampaignSpec& spec);
    // Runs the cells of a stored campaign that are not done yet (stopped,
    // interrupted or failed ones) on `agents`.
    void resume(qint64 campaignId, const std::vector<orchestrator::AgentPair>& agents);
    void pause();
    void unpause();
    void stop();
    void setSettings(const QJsonObject& settings);

signals:
    void stateChanged(smclab::orchestrator::RunnerState state);
    void campaignStarted(qint64 campaignId);
    void progressChanged(const smclab::orchestrator::Progress& progress);
    void cellStarted(const smclab::orchestrator::CellInfo& cell);
    // The client's result of a cell that ran to its end, before its cellFinished.
    void cellResult(const smclab::orchestrator::CellInfo& cell, const smclab::protocol::RunResult& client);
    // A cell ended: ok, or failed with the agents' reason.
    void cellFinished(const smclab::orchestrator::CellInfo& cell, bool ok, const QString& error);
    void samplesReceived(const smclab::orchestrator::CellInfo& cell, const smclab::protocol::Samples& samples,
                         bool fromServer);
    void settingsApplied(const smclab::orchestrator::CellInfo& cell, const QJsonObject& applied, qint64 runTimeMs);
    // A live change the agents refused, or that found no run in flight:
    // the settings as asked and why. The values in force did not change.
    void settingsRefused(const QJsonObject& settings, const QString& error);
    void message(const QString& text);
    void errorOccurred(const QString& error);
    void finished(qint64 campaignId, smclab::orchestrator::RunnerState state);

private:
    // Lives in m_thread; owns the store and the orchestrator there.
    class Core;
    QThread m_thread;
    Core* m_core = nullptr;
};

}  // namespace smclab::gui
