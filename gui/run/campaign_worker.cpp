#include "run/campaign_worker.h"

#include <functional>

#include "smclab/db/result_store.h"

namespace smclab::gui {

class CampaignWorker::Core : public QObject {
public:
    Core(CampaignWorker* owner, QString path, AgentConnectOptions options, QJsonObject wire)
        : m_owner(owner), m_path(std::move(path)), m_options(std::move(options)), m_wire(std::move(wire)) {}

    // `go` starts or resumes the orchestrator once its signals are wired.
    void begin(const std::function<smcr::Status(orchestrator::Orchestrator&)>& go) {
        if (m_orchestrator) {
            emit m_owner->errorOccurred(tr("A campaign is already running"));
            return;
        }
        if (!m_store) {
            auto opened = db::ResultStore::open(m_path);
            if (!opened) {
                emit m_owner->errorOccurred(QString::fromStdString(opened.error().message));
                emit m_owner->finished(0, orchestrator::RunnerState::failed);
                return;
            }
            m_store = std::move(opened.value());
        }
        m_orchestrator = std::make_unique<orchestrator::Orchestrator>(*m_store);
        m_orchestrator->setConnectOptions(m_options);
        m_orchestrator->setWire(m_wire);
        auto* o = m_orchestrator.get();
        CampaignWorker* w = m_owner;
        // Direct connections: these run in the worker thread and re-emit the
        // owner's signals, which reach the UI thread queued.
        connect(o, &orchestrator::Orchestrator::stateChanged, w, &CampaignWorker::stateChanged, Qt::DirectConnection);
        connect(o, &orchestrator::Orchestrator::campaignStarted, w, &CampaignWorker::campaignStarted,
                Qt::DirectConnection);
        connect(o, &orchestrator::Orchestrator::progressChanged, w, &CampaignWorker::progressChanged,
                Qt::DirectConnection);
        connect(o, &orchestrator::Orchestrator::cellStarted, w, &CampaignWorker::cellStarted, Qt::DirectConnection);
        connect(o, &orchestrator::Orchestrator::cellResult, w, &CampaignWorker::cellResult, Qt::DirectConnection);
        connect(o, &orchestrator::Orchestrator::cellFinished, w, &CampaignWorker::cellFinished, Qt::DirectConnection);
        connect(o, &orchestrator::Orchestrator::samplesReceived, w, &CampaignWorker::samplesReceived,
                Qt::DirectConnection);
        connect(
            o, &orchestrator::Orchestrator::settingsApplied, w,
            [w](const orchestrator::CellInfo& cell, const QJsonObject& applied, const QDateTime&, qint64 runTimeMs) {
                emit w->settingsApplied(cell, applied, runTimeMs);
            },
            Qt::DirectConnection);
        connect(o, &orchestrator::Orchestrator::settingsFailed, w, &CampaignWorker::settingsRefused,
                Qt::DirectConnection);
        connect(o, &orchestrator::Orchestrator::message, w, &CampaignWorker::message, Qt::DirectConnection);
        connect(o, &orchestrator::Orchestrator::errorOccurred, w, &CampaignWorker::errorOccurred, Qt::DirectConnection);
        connect(
            o, &orchestrator::Orchestrator::finished, this,
            [this, w](qint64 id, orchestrator::RunnerState state) {
                emit w->finished(id, state);
                // Deleted later: this slot runs inside the orchestrator's own signal.
                m_orchestrator.release()->deleteLater();
            },
            Qt::DirectConnection);
        const smcr::Status status = go(*o);
        if (!status) {
            emit w->errorOccurred(QString::fromStdString(status.error().message));
            emit w->finished(0, orchestrator::RunnerState::failed);
            m_orchestrator.reset();
        }
    }

    orchestrator::Orchestrator* orchestrator() const { return m_orchestrator.get(); }

private:
    CampaignWorker* m_owner;
    QString m_path;
    AgentConnectOptions m_options;
    QJsonObject m_wire;
    std::unique_ptr<db::ResultStore> m_store;
    std::unique_ptr<orchestrator::Orchestrator> m_orchestrator;
};

CampaignWorker::CampaignWorker(const QString& databasePath, const AgentConnectOptions& options,
                               const QJsonObject& wire) {
    qRegisterMetaType<orchestrator::RunnerState>();
    qRegisterMetaType<orchestrator::Progress>();
    qRegisterMetaType<orchestrator::CellInfo>();
    qRegisterMetaType<protocol::Samples>();
    qRegisterMetaType<protocol::RunResult>();
    m_thread.setObjectName(QStringLiteral("smclab-campaign"));
    m_core = new Core(this, databasePath, options, wire);
    m_core->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_core, &QObject::deleteLater);
    m_thread.start();
}

CampaignWorker::~CampaignWorker() {
    if (m_core) {
        QMetaObject::invokeMethod(m_core, [core = m_core] {
            if (core->orchestrator()) core->orchestrator()->stop();
        });
    }
    m_thread.quit();
    m_thread.wait();
}

void CampaignWorker::start(const orchestrator::CampaignSpec& spec) {
    QMetaObject::invokeMethod(m_core, [core = m_core, spec] {
        core->begin([&spec](orchestrator::Orchestrator& o) { return o.start(spec); });
    });
}

void CampaignWorker::resume(qint64 campaignId, const std::vector<orchestrator::AgentPair>& agents) {
    QMetaObject::invokeMethod(m_core, [core = m_core, campaignId, agents] {
        core->begin([&](orchestrator::Orchestrator& o) { return o.resume(campaignId, agents); });
    });
}

void CampaignWorker::pause() {
    QMetaObject::invokeMethod(m_core, [core = m_core] {
        if (core->orchestrator()) core->orchestrator()->pause();
    });
}

void CampaignWorker::unpause() {
    QMetaObject::invokeMethod(m_core, [core = m_core] {
        if (core->orchestrator()) core->orchestrator()->unpause();
    });
}

void CampaignWorker::stop() {
    QMetaObject::invokeMethod(m_core, [core = m_core] {
        if (core->orchestrator()) core->orchestrator()->stop();
    });
}

void CampaignWorker::setSettings(const QJsonObject& settings) {
    QMetaObject::invokeMethod(m_core, [this, core = m_core, settings] {
        if (!core->orchestrator()) {
            emit settingsRefused(settings, tr("the campaign has ended"));
            return;
        }
        const smcr::Status status = core->orchestrator()->setSettings(settings);
        if (!status) emit settingsRefused(settings, QString::fromStdString(status.error().message));
    });
}

}  // namespace smclab::gui
