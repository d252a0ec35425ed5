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
    CampaignWorker(const QString& databasePath, const AgentConnectOptions& options);
    ~CampaignWorker() override;

    // Each call is queued to the worker thread.
    void start(const orchestrator::CampaignSpec& spec);
    void pause();
    void unpause();
    void stop();
    void setSettings(const QJsonObject& settings);

signals:
    void stateChanged(smclab::orchestrator::RunnerState state);
    void campaignStarted(qint64 campaignId);
    void progressChanged(const smclab::orchestrator::Progress& progress);
    void cellStarted(const smclab::orchestrator::CellInfo& cell);
    void samplesReceived(const smclab::orchestrator::CellInfo& cell, const smclab::protocol::Samples& samples,
                         bool fromServer);
    void settingsApplied(const smclab::orchestrator::CellInfo& cell, const QJsonObject& applied,
                         qint64 runTimeMs);
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
