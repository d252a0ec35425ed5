#include "run.h"

#include <algorithm>

#include <unistd.h>

#include <QDateTime>
#include <QMetaObject>

#include "settings_bridge.h"
#include "tool_settings.h"

namespace smclab::daemon {

using protocol::RunState;

namespace {

// A client normally ends by itself after warm-up + duration; past this margin
// the agent stops it (a stuck peer must not hold a run slot forever).
constexpr qint64 kClientOverrunMs = 15'000;

protocol::Samples toSamples(const QString& runId, qint64 seq, const workloads::Sample& sample,
                            const workloads::CpuTimes& previousCpu) {
    protocol::Samples out;
    out.runId = runId;
    out.seq = seq;
    out.tMs = static_cast<qint64>(sample.elapsedSec * 1000.0 + 0.5);
    out.intervalMs = static_cast<qint64>(sample.intervalSec * 1000.0 + 0.5);
    out.warmup = sample.warmup;
    out.bytes = sample.bytes;
    out.throughputBps = sample.intervalSec > 0 ? static_cast<double>(sample.bytes) * 8.0 / sample.intervalSec : 0.0;
    out.ops = sample.ops;
    out.opsPerSec = sample.opsPerSec;
    if (sample.latency.count > 0) {
        out.latency = {true,
                       sample.latency.meanUs,
                       sample.latency.p50Us,
                       sample.latency.p90Us,
                       sample.latency.p99Us,
                       sample.latency.p999Us,
                       sample.latency.maxUs};
    }
    if (sample.intervalSec > 0) {
        out.cpuUserPercent = (sample.cpu.userSec - previousCpu.userSec) * 100.0 / sample.intervalSec;
        out.cpuSystemPercent = (sample.cpu.systemSec - previousCpu.systemSec) * 100.0 / sample.intervalSec;
    }
    for (const transports::Counter& counter : sample.counters) {
        out.counters.insert(QString::fromStdString(counter.name), static_cast<double>(counter.value));
    }
    return out;
}

}  // namespace

Run::Run(protocol::StartRun spec, const workloads::Workload* workload, QJsonObject params,
         std::shared_ptr<transports::Transport> transport, std::map<std::string, std::string> previousSettings,
         QObject* parent)
    : QObject(parent),
      m_spec(std::move(spec)),
      m_workload(workload),
      m_params(std::move(params)),
      m_transport(std::move(transport)),
      m_previousSettings(std::move(previousSettings)) {
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        if (m_boundedByAgent) {
            requestStop(EndCause::duration);
        } else {
            qWarning("run %s: client still going %lld ms after its end; stopping it", qPrintable(id()),
                     static_cast<long long>(kClientOverrunMs));
            requestStop(EndCause::request);
        }
    });
}

Run::~Run() {
    m_stop.store(true);
    if (m_thread.joinable()) m_thread.join();
    restoreSettings();
}

void Run::setState(RunState state) {
    if (state == m_state) return;
    m_state = state;
    emit stateChanged(id(), state, elapsedMs());
}

workloads::RunContext Run::makeContext() {
    workloads::RunContext ctx;
    ctx.role = m_spec.role;  // validated: server or client
    ctx.params = m_params;
    ctx.transport = m_transport;
    const protocol::Endpoint& endpoint = m_spec.role == smcr::Side::server ? m_spec.listen : m_spec.peer;
    ctx.host = endpoint.address.toString().toStdString();
    ctx.port = endpoint.port;
    for (auto it = m_spec.settings.begin(); it != m_spec.settings.end(); ++it)
        ctx.settings.emplace_back(it.key().toStdString(), settingText(it.value()));
    for (auto it = m_spec.transportOptions.begin(); it != m_spec.transportOptions.end(); ++it)
        ctx.transportOptions.emplace_back(it.key().toStdString(), settingText(it.value()));
    ctx.stop = &m_stop;
    ctx.sampleIntervalMs = static_cast<int>(m_spec.sampleIntervalMs);
    // Callbacks run on the worker thread; they only post to the event loop.
    // A post to a Run already destroyed is dropped by Qt.
    auto seq = std::make_shared<qint64>(0);
    auto previousCpu = std::make_shared<workloads::CpuTimes>(workloads::CpuTimes::now());
    const QString runId = id();
    auto lastTMs = std::make_shared<qint64>(-1);
    ctx.onSample = [this, seq, previousCpu, lastTMs, runId](const workloads::Sample& sample) {
        protocol::Samples samples = toSamples(runId, (*seq)++, sample, *previousCpu);
        // On the run's clock, like run_state t_ms and settings_applied at_ms
        // (the workload's own clock starts later, after its connect), taken
        // just after the sample's counters were read: a sample with t_ms <=
        // at_ms was read before the setting took effect.
        // Strictly increasing: a tool's output can bring two interval lines
        // in one read (iperf3's), and a series must not have two points at
        // one time.
        samples.tMs = std::max(m_clock.elapsed(), *lastTMs + 1);
        *lastTMs = samples.tMs;
        *previousCpu = sample.cpu;
        QMetaObject::invokeMethod(
            this, [this, samples] { emit samplesReady(samples); }, Qt::QueuedConnection);
    };
    ctx.onListening = [this](uint16_t port) {
        QMetaObject::invokeMethod(
            this, [this, port] { onListening(port); }, Qt::QueuedConnection);
    };
    ctx.onToolProcess = [this](int processGroup) { m_toolGroup.store(processGroup); };
    ctx.onLog = [runId](const std::string& line) { qInfo("run %s: %s", qPrintable(runId), line.c_str()); };
    return ctx;
}

void Run::start() {
    m_clock.start();
    m_startedWallMs = QDateTime::currentMSecsSinceEpoch();
    m_hostAtStart = readHostCpu();
    setState(RunState::starting);
    if (m_spec.role == smcr::Side::server || !m_params.contains("duration_ms")) {
        // Servers serve for duration_ms; a client without a time parameter
        // (kv runs a request count) gets duration_ms as its time limit.
        m_boundedByAgent = true;
        m_deadline.start(static_cast<int>(m_spec.durationMs));
    } else {
        const qint64 warmupMs = m_params.value("warmup_ms").toInteger(0);
        m_deadline.start(static_cast<int>(m_spec.durationMs + warmupMs + kClientOverrunMs));
    }
    workloads::RunContext ctx = makeContext();
    const workloads::Workload* workload = m_workload;
    m_thread = std::thread([this, workload, ctx = std::move(ctx)] {
        auto outcome = std::make_shared<smcr::Result<workloads::RunResult>>(workload->run(ctx));
        QMetaObject::invokeMethod(
            this, [this, outcome] { onWorkerDone(outcome); }, Qt::QueuedConnection);
    });
    if (m_spec.role == smcr::Side::client) setState(RunState::running);
}

void Run::onListening(quint16 port) {
    if (!isActive() || m_state == RunState::stopping) return;
    setState(RunState::ready);
    emit ready({id(), m_spec.listen.address.toString(), port});
    setState(RunState::running);
}

void Run::requestStop(EndCause cause) {
    if (!isActive()) return;
    if (m_endCause == EndCause::none) m_endCause = cause;
    m_stop.store(true);
    setState(RunState::stopping);
}

protocol::ProtocolError Run::applyLiveSettings(const QJsonObject& settings, protocol::SettingsApplied* out) {
    out->runId = id();
    const protocol::ProtocolError error = applySettings(*m_transport, settings, &m_previousSettings, &out->applied);
    // A tool under smcr_run: the same (validated) settings into its engines.
    if (!error.isError() && m_transport->name() == "smcr" && m_toolGroup.load() > 0) {
        for (auto it = out->applied.begin(); it != out->applied.end(); ++it) {
            const std::string value = settingText(it.value());
            const ToolSettingOutcome done = setInToolProcesses(m_toolGroup.load(), it.key().toStdString(), value);
            qInfo("run %s: %s=%s set in %d preloaded process(es)%s%s", qPrintable(id()), qPrintable(it.key()),
                  value.c_str(), done.processes, done.errors.empty() ? "" : "; not in ", done.errors.c_str());
        }
    }
    // Taken after the last change returned: from here on the transport runs with it.
    out->atMs = elapsedMs();
    out->atWallMs = QDateTime::currentMSecsSinceEpoch();
    return error;
}

void Run::restoreSettings() {
    for (const auto& [name, value] : m_previousSettings) {
        const smcr::Status status = m_transport->applySetting(name, value);
        if (!status.ok()) {
            qWarning("run %s: could not restore %s=%s: %s", qPrintable(id()), name.c_str(), value.c_str(),
                     status.error().message.c_str());
        }
    }
    m_previousSettings.clear();
}

void Run::onWorkerDone(const std::shared_ptr<smcr::Result<workloads::RunResult>>& outcome) {
    if (m_thread.joinable()) m_thread.join();
    m_deadline.stop();
    m_lease.reset();

    protocol::RunResult result;
    result.runId = id();
    result.role = m_spec.role;
    result.workload = m_spec.workload;
    result.transport = m_spec.transport;
    result.durationMs = elapsedMs();
    result.startedAtWallMs = m_startedWallMs;
    result.endedAtWallMs = QDateTime::currentMSecsSinceEpoch();
    result.hostState = hostStateJson(m_hostAtStart, readHostCpu(), result.durationMs, readCpuMhz(),
                                     static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)), ::sysconf(_SC_CLK_TCK));
    result.params = m_params;
    result.settings = settingsSnapshot(*m_transport);
    restoreSettings();

    if (outcome->ok()) {
        const QJsonObject full = outcome->value().toJson();
        result.summary = full.value("summary").toObject();
        result.summary.insert("elapsed_sec", full.value("elapsed_sec"));
        result.summary.insert("bytes", full.value("bytes"));
        result.summary.insert("ops", full.value("ops"));
        // Workloads that time nothing (tcp_bw) leave an empty histogram: omit it.
        const QJsonObject latency = full.value("latency").toObject();
        if (latency.value("count").toDouble() > 0) {
            result.histogram = latency;
            if (full.contains("latency_hdr_base64")) {
                result.histogram.insert("hdr_base64", full.value("latency_hdr_base64"));
            }
        }
        result.counters = full.value("counters").toObject();
        result.cpu = full.value("cpu").toObject();
        result.params = full.value("params").toObject();
        result.state = m_endCause == EndCause::request ? RunState::stopped : RunState::finished;
    } else if (m_endCause == EndCause::duration && m_spec.role == smcr::Side::client) {
        // A client that counts requests (kv, redis) and ran into its time
        // limit before it could report: no figures, and it says so.
        result.state = RunState::failed;
        result.error = QString("stopped at its time limit (duration_ms %1) before it finished: %2")
                           .arg(m_spec.durationMs)
                           .arg(QString::fromStdString(outcome->error().message));
        emit failedToRun(id(), result.error);
    } else if (m_endCause == EndCause::request || m_endCause == EndCause::duration) {
        // Ended by our own stop: the workload's complaint is a consequence, not the cause.
        result.state = m_endCause == EndCause::request ? RunState::stopped : RunState::finished;
        result.error = QString::fromStdString(outcome->error().message);
    } else {
        result.state = RunState::failed;
        result.error = QString::fromStdString(outcome->error().toString());
        emit failedToRun(id(), result.error);
    }
    setState(result.state);
    emit finished(result);
}

}  // namespace smclab::daemon
