#include "agent_metrics.h"

#include <smcr/version.h>

#include "agent.h"
#include "engine_metric_names.h"
#include "preload_metrics.h"
#include "protocol/version.h"
#include "run.h"

namespace smclab::daemon {

namespace {

using protocol::RunState;

void addAgentFamilies(const Agent& agent, MetricsPage* page) {
    page->add(QStringLiteral("smclab_agent_up"), MetricType::gauge,
              QStringLiteral("1 while the agent serves controllers"), {}, agent.isShuttingDown() ? 0 : 1);
    page->add(QStringLiteral("smclab_agent_info"), MetricType::gauge,
              QStringLiteral("agent and control protocol version"),
              {{QStringLiteral("version"), QString::fromLatin1(smcr::versionString())},
               {QStringLiteral("protocol"), QString::fromLatin1(protocol::kProtocolVersion)}},
              1);
    page->add(QStringLiteral("smclab_agent_sessions"), MetricType::gauge,
              QStringLiteral("controller sessions connected now"), {}, agent.sessionCount());
    page->add(QStringLiteral("smclab_agent_runs_max"), MetricType::gauge,
              QStringLiteral("most runs the agent takes at once"), {}, agent.options().maxRuns);

    // Every non-terminal state is listed, zeros included, so a dashboard's
    // series do not appear and vanish with the runs.
    const RunState live[] = {RunState::accepted, RunState::starting, RunState::ready, RunState::running,
                             RunState::stopping};
    for (const RunState state : live) {
        qsizetype count = 0;
        for (const Run* run : agent.runs()) count += run->state() == state ? 1 : 0;
        page->add(QStringLiteral("smclab_agent_runs"), MetricType::gauge, QStringLiteral("runs now, by state"),
                  {{QStringLiteral("state"), protocol::runStateName(state)}}, static_cast<double>(count));
    }
    page->add(QStringLiteral("smclab_agent_runs_started_total"), MetricType::counter,
              QStringLiteral("runs accepted since the agent started"), {}, static_cast<double>(agent.runsStarted()));
    for (const RunState state : {RunState::finished, RunState::stopped, RunState::failed}) {
        page->add(QStringLiteral("smclab_agent_runs_ended_total"), MetricType::counter,
                  QStringLiteral("runs ended since the agent started, by final state"),
                  {{QStringLiteral("state"), protocol::runStateName(state)}},
                  static_cast<double>(agent.runsEnded().value(state, 0)));
    }
}

void addEngineFamilies(const Run& run, MetricsPage* page) {
    const MetricLabels runLabels{{QStringLiteral("run_id"), run.id()},
                                 {QStringLiteral("role"), QLatin1String(smcr::sideName(run.spec().role))},
                                 {QStringLiteral("workload"), run.spec().workload}};
    for (const transports::Counter& counter : run.transport()->counters()) {
        EngineMetric metric = engineMetric(counter.name);
        if (metric.name.isEmpty()) continue;
        MetricLabels labels = runLabels;
        labels.append(metric.labels);
        page->add(metric.name, metric.type, metric.help, labels, static_cast<double>(counter.value));
    }
}

}  // namespace

MetricsPage agentMetrics(const Agent& agent) {
    MetricsPage page;
    addAgentFamilies(agent, &page);
    for (const Run* run : agent.runs()) {
        // libsmcr runs only: tcp and ksmc counters are the kernel's, which
        // node_exporter already serves.
        if (run->isActive() && run->transport() && run->transport()->name() == "smcr") addEngineFamilies(*run, &page);
    }
    addPreloadFamilies(&page);
    return page;
}

}  // namespace smclab::daemon
