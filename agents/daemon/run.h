// One run: one side (server or client) of one workload over one transport,
// executed by Workload::run on its own worker thread so the event loop never
// blocks. Samples, the server's listening port and the final result come
// back to the event loop as queued calls and leave as Qt signals; settings
// are changed live from the event loop through the shared Transport (its
// methods are thread-safe).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QTimer>

#include "host_state.h"
#include "protocol/messages.h"
#include "protocol/protocol_error.h"
#include "transport.h"
#include "workload.h"

namespace smclab::daemon {

class Run : public QObject {
    Q_OBJECT
public:
    enum class EndCause { none = 0, duration, request, failure };

    // `params` are validated; `previousSettings` holds the values that the
    // start_run settings replaced, restored when the run ends.
    Run(protocol::StartRun spec, const workloads::Workload* workload, QJsonObject params,
        std::shared_ptr<transports::Transport> transport, std::map<std::string, std::string> previousSettings,
        QObject* parent = nullptr);
    ~Run() override;

    void start();
    // Asks the worker to end; the result still follows through finished().
    void requestStop(EndCause cause);
    protocol::ProtocolError applyLiveSettings(const QJsonObject& settings, protocol::SettingsApplied* out);

    const protocol::StartRun& spec() const { return m_spec; }
    const QString& id() const { return m_spec.runId; }
    protocol::RunState state() const { return m_state; }
    qint64 elapsedMs() const { return m_clock.isValid() ? m_clock.elapsed() : 0; }
    bool isActive() const { return !protocol::isTerminal(m_state); }
    // Thread-safe to read counters from (the metrics page does, mid-run).
    const std::shared_ptr<transports::Transport>& transport() const { return m_transport; }
    // Kept until the workload ends: the SMC TCP option on the run's port (syn_option_ports.h).
    void holdWhileRunning(std::shared_ptr<void> lease) { m_lease = std::move(lease); }

signals:
    void stateChanged(const QString& runId, protocol::RunState state, qint64 tMs);
    void ready(const protocol::RunReady& ready);
    void samplesReady(const protocol::Samples& samples);
    void failedToRun(const QString& runId, const QString& message);
    void finished(const protocol::RunResult& result);

private:
    void setState(protocol::RunState state);
    void onListening(quint16 port);
    void onWorkerDone(const std::shared_ptr<smcr::Result<workloads::RunResult>>& outcome);
    void restoreSettings();
    workloads::RunContext makeContext();

    protocol::StartRun m_spec;
    const workloads::Workload* m_workload;
    QJsonObject m_params;
    std::shared_ptr<transports::Transport> m_transport;
    std::map<std::string, std::string> m_previousSettings;
    protocol::RunState m_state = protocol::RunState::accepted;
    EndCause m_endCause = EndCause::none;
    bool m_boundedByAgent = false;  // duration_ms enforced by the agent's timer, not the workload
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_toolGroup{0};  // a tool workload's program (process group), 0 = none
    std::thread m_thread;
    QTimer m_deadline;
    QElapsedTimer m_clock;
    qint64 m_startedWallMs = 0;
    HostCpuSnapshot m_hostAtStart;  // for run_result.host_state
    std::shared_ptr<void> m_lease;
};

}  // namespace smclab::daemon
