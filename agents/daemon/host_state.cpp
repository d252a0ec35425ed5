#include "host_state.h"

#include <QDir>
#include <QFile>
#include <QStringList>

namespace smclab::daemon {

namespace {

QString readAll(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    // /proc files report size 0: read until EOF.
    return QString::fromUtf8(file.readAll());
}

}  // namespace

std::optional<ProcStatCpu> parseProcStat(const QString& text) {
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        const QStringList f = line.simplified().split(QLatin1Char(' '));
        if (f.value(0) != QLatin1String("cpu") || f.size() < 5) continue;
        // user nice system idle iowait irq softirq steal guest guest_nice;
        // guest and guest_nice are already counted in user and nice.
        qint64 values[8] = {};
        for (int i = 0; i < 8 && i + 1 < f.size(); ++i) {
            bool ok = false;
            values[i] = f[i + 1].toLongLong(&ok);
            if (!ok) return std::nullopt;
        }
        ProcStatCpu cpu;
        for (qint64 v : values) cpu.totalTicks += v;
        cpu.idleTicks = values[3] + values[4];
        cpu.stealTicks = values[7];
        return cpu;
    }
    return std::nullopt;
}

std::optional<qint64> parseSelfStatTicks(const QString& text) {
    // The command name (field 2) may hold spaces and parentheses: count
    // fields from the last ')'. utime and stime are fields 14 and 15.
    const qsizetype close = text.lastIndexOf(QLatin1Char(')'));
    if (close < 0) return std::nullopt;
    const QStringList f = text.mid(close + 1).simplified().split(QLatin1Char(' '));
    // f[0] is field 3 (state), so field n is f[n - 3].
    if (f.size() < 13) return std::nullopt;
    bool okU = false, okS = false;
    const qint64 utime = f[11].toLongLong(&okU);
    const qint64 stime = f[12].toLongLong(&okS);
    if (!okU || !okS) return std::nullopt;
    return utime + stime;
}

std::optional<double> parseLoadAverage(const QString& text) {
    bool ok = false;
    const double load = text.simplified().section(QLatin1Char(' '), 0, 0).toDouble(&ok);
    return ok ? std::optional<double>(load) : std::nullopt;
}

std::optional<double> parseCpuInfoMhz(const QString& text) {
    double sum = 0.0;
    int count = 0;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        if (!line.startsWith(QLatin1String("cpu MHz"))) continue;
        bool ok = false;
        const double mhz = line.section(QLatin1Char(':'), 1).trimmed().toDouble(&ok);
        if (ok && mhz > 0) {
            sum += mhz;
            ++count;
        }
    }
    return count > 0 ? std::optional<double>(sum / count) : std::nullopt;
}

HostCpuSnapshot readHostCpu(const QString& procRoot) {
    HostCpuSnapshot s;
    s.host = parseProcStat(readAll(procRoot + QStringLiteral("/stat")));
    s.selfTicks = parseSelfStatTicks(readAll(procRoot + QStringLiteral("/self/stat")));
    s.load1 = parseLoadAverage(readAll(procRoot + QStringLiteral("/loadavg")));
    return s;
}

std::optional<double> readCpuMhz(const QString& sysCpuRoot, const QString& procRoot) {
    double sum = 0.0;
    int count = 0;
    const QStringList cpus = QDir(sysCpuRoot).entryList({QStringLiteral("cpu[0-9]*")}, QDir::Dirs);
    for (const QString& cpu : cpus) {
        bool ok = false;
        const double khz = readAll(sysCpuRoot + QLatin1Char('/') + cpu + QStringLiteral("/cpufreq/scaling_cur_freq"))
                               .trimmed()
                               .toDouble(&ok);
        if (ok && khz > 0) {
            sum += khz / 1000.0;
            ++count;
        }
    }
    if (count > 0) return sum / count;
    return parseCpuInfoMhz(readAll(procRoot + QStringLiteral("/cpuinfo")));
}

QJsonObject hostStateJson(const HostCpuSnapshot& start, const HostCpuSnapshot& end, qint64 intervalMs,
                          std::optional<double> cpuMhz, int cpuCount, qint64 ticksPerSecond) {
    QJsonObject o;
    o.insert(QStringLiteral("interval_ms"), intervalMs);
    if (cpuCount > 0) o.insert(QStringLiteral("cpu_count"), cpuCount);
    const double seconds = static_cast<double>(intervalMs) / 1000.0;
    const auto pctOfCore = [&](qint64 ticks) {
        return static_cast<double>(ticks) / static_cast<double>(ticksPerSecond) / seconds * 100.0;
    };
    if (seconds > 0 && ticksPerSecond > 0) {
        if (start.host && end.host) {
            const qint64 total = end.host->totalTicks - start.host->totalTicks;
            const qint64 idle = end.host->idleTicks - start.host->idleTicks;
            const qint64 steal = end.host->stealTicks - start.host->stealTicks;
            // Steal is time the VM wanted to run and did not: not busy here.
            o.insert(QStringLiteral("cpu_busy_pct"), pctOfCore(std::max<qint64>(0, total - idle - steal)));
            o.insert(QStringLiteral("steal_pct"), pctOfCore(std::max<qint64>(0, steal)));
        }
        if (start.selfTicks && end.selfTicks) {
            o.insert(QStringLiteral("agent_cpu_pct"),
                     pctOfCore(std::max<qint64>(0, *end.selfTicks - *start.selfTicks)));
        }
    }
    if (start.load1) o.insert(QStringLiteral("load1_start"), *start.load1);
    if (end.load1) o.insert(QStringLiteral("load1_end"), *end.load1);
    if (cpuMhz) o.insert(QStringLiteral("cpu_mhz"), *cpuMhz);
    return o;
}

}  // namespace smclab::daemon
