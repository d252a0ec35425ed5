#include "tool_sampler.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <control_path.h>
#include <time.h>
#include <unistd.h>

#include <QJsonDocument>

#include "tool_process.h"

namespace smclab::workloads {

namespace {

// utime, stime, cutime, cstime of /proc/PID/stat (fields 14..17), in seconds.
CpuTimes processCpu(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');  // the command name may hold spaces
    CpuTimes out;
    if (close == std::string::npos) return out;
    std::istringstream fields(text.substr(close + 2));
    std::string skip;
    for (int field = 3; field < 14; ++field) fields >> skip;
    double utime = 0, stime = 0, cutime = 0, cstime = 0;
    fields >> utime >> stime >> cutime >> cstime;
    const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
    out.userSec = (utime + cutime) / tick;
    out.systemSec = (stime + cstime) / tick;
    return out;
}

}  // namespace

ToolSampler::ToolSampler(const RunContext& ctx, std::string toolName, ToolIntervalReader intervals, bool preloaded)
    : m_ctx(ctx),
      m_toolName(std::move(toolName)),
      m_intervals(std::move(intervals)),
      m_preloaded(preloaded),
      m_startSec(monotonicSec()),
      m_lastSampleSec(m_startSec) {}

void ToolSampler::tick(const ToolProcess& process) {
    if (!m_ctx.onSample || m_ctx.sampleIntervalMs <= 0) return;
    if (m_intervals) {
        const std::string& out = process.out();
        if (out.size() <= m_outputSeen) return;
        const std::string_view more = std::string_view(out).substr(m_outputSeen);
        m_outputSeen = out.size();
        for (Sample& sample : m_intervals(more)) deliver(std::move(sample), process.pid());
        return;
    }
    if (!m_preloaded) return;
    const double now = monotonicSec();
    if ((now - m_lastSampleSec) * 1000 < m_ctx.sampleIntervalMs) return;
    samplePreloaded(process.pid());
}

void ToolSampler::samplePreloaded(pid_t processGroup) {
    std::map<std::string, double> sums;
    for (const pid_t pid : smcr::preload::controlPids()) {
        if (::getpgid(pid) != processGroup) continue;  // another program's, or stale
        auto answer = smcr::preload::controlRequest(pid, "stat\n", 300);
        if (!answer.ok()) continue;
        const QJsonObject stats = QJsonDocument::fromJson(QByteArray::fromStdString(*answer)).object();
        const QJsonObject engine = stats.value(QLatin1String("engine")).toObject();
        for (const QJsonObject* o : {&stats, &engine}) {
            for (auto it = o->begin(); it != o->end(); ++it) {
                if (it.value().isDouble() && it.key() != QLatin1String("pid"))
                    sums[it.key().toStdString()] += it.value().toDouble();
            }
        }
    }
    const double now = monotonicSec();
    Sample sample;
    sample.intervalSec = now - m_lastSampleSec;
    const double appBytes = sums["app_tx_bytes"] + sums["app_rx_bytes"];
    // A process that ended takes its counts along: no negative interval.
    sample.bytes = static_cast<uint64_t>(std::max(0.0, appBytes - m_lastAppBytes));
    m_lastAppBytes = appBytes;
    for (const auto& [name, value] : sums) sample.counters.push_back({name, static_cast<uint64_t>(value)});
    deliver(std::move(sample), processGroup);
}

void ToolSampler::deliver(Sample sample, pid_t pid) {
    const double now = monotonicSec();
    sample.elapsedSec = now - m_startSec;
    if (sample.intervalSec <= 0) sample.intervalSec = now - m_lastSampleSec;
    m_lastSampleSec = now;
    if (sample.intervalSec > 0) sample.mbPerSec = static_cast<double>(sample.bytes) / sample.intervalSec / 1e6;
    const CpuTimes agent = CpuTimes::now();
    const CpuTimes tool = processCpu(pid);
    sample.cpu = {agent.userSec + tool.userSec, agent.systemSec + tool.systemSec};
    ++m_samples;
    m_ctx.onSample(sample);
}

std::string ToolSampler::note() const {
    if (m_ctx.sampleIntervalMs <= 0) return "none: sampling is off (sample interval 0)";
    std::string how;
    if (m_intervals) {
        how = m_toolName + "'s own interval lines";
    } else if (m_preloaded) {
        how = "engine counters of the preloaded processes every " + std::to_string(m_ctx.sampleIntervalMs) + " ms";
    } else {
        return "none: " + m_toolName + " printed no interval samples on this side (over tcp there are no engine " +
               "counters to sample)";
    }
    return how + " (" + std::to_string(m_samples) + " samples)";
}

}  // namespace smclab::workloads
