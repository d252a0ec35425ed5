// The host's state while a run ran, for run_result.host_state: how busy the
// CPUs were and with what (this agent or anything else), steal time taken
// by the hypervisor, the load average and the CPU frequency. Read from
// /proc and /sys at the run's start and end (a handful of small reads, no
// thread), so a controller can flag results measured on a busy host.
// host_probe.h says what the host can do; this says how it was while it did.
#pragma once

#include <optional>

#include <QJsonObject>
#include <QString>

namespace smclab::daemon {

// Aggregate "cpu" line of /proc/stat, in clock ticks since boot.
struct ProcStatCpu {
    qint64 totalTicks = 0;  // every field summed (guest time is already inside user)
    qint64 idleTicks = 0;   // idle + iowait
    qint64 stealTicks = 0;
};

struct HostCpuSnapshot {
    std::optional<ProcStatCpu> host;
    std::optional<qint64> selfTicks;  // this process: utime + stime (all threads)
    std::optional<double> load1;      // 1-minute load average
};

// Parsers of the /proc formats (proc(5)); nullopt on text they do not know.
std::optional<ProcStatCpu> parseProcStat(const QString& text);
std::optional<qint64> parseSelfStatTicks(const QString& text);  // /proc/self/stat
std::optional<double> parseLoadAverage(const QString& text);    // /proc/loadavg
// Mean of the "cpu MHz" lines of /proc/cpuinfo.
std::optional<double> parseCpuInfoMhz(const QString& text);

HostCpuSnapshot readHostCpu(const QString& procRoot = QStringLiteral("/proc"));
// Mean current frequency: cpufreq's scaling_cur_freq where the kernel has
// it, else /proc/cpuinfo; nullopt where neither says (many VMs).
std::optional<double> readCpuMhz(const QString& sysCpuRoot = QStringLiteral("/sys/devices/system/cpu"),
                                 const QString& procRoot = QStringLiteral("/proc"));

// The run_result.host_state object from two snapshots (PROTOCOL.md):
// cpu_busy_pct and agent_cpu_pct in percent of one core (like samples.cpu),
// steal_pct likewise, load1_start/load1_end, cpu_mhz, cpu_count,
// interval_ms. Fields whose source was unreadable are left out.
QJsonObject hostStateJson(const HostCpuSnapshot& start, const HostCpuSnapshot& end, qint64 intervalMs,
                          std::optional<double> cpuMhz, int cpuCount, qint64 ticksPerSecond);

}  // namespace smclab::daemon
