#include "qperf_format.h"

#include <algorithm>
#include <vector>

#include "tool_format.h"

namespace smclab::workloads {

namespace {

struct Line {
    std::string name;
    std::string value;
    std::string unit;
};

// Scales by 1000 through the given prefixes: {"B/sec","KB/sec",...}.
Line scaled(const std::string& name, double value, std::initializer_list<const char*> units) {
    auto it = units.begin();
    while (value >= 1000.0 && it + 1 != units.end()) {
        value /= 1000.0;
        ++it;
    }
    return {name, significant(value), *it};
}

Line timeLine(const std::string& name, double ns, bool oneUnit) {
    if (oneUnit) return {name, significant(ns / 1000.0), "us"};
    if (ns < 1000.0) return {name, significant(ns), "ns"};
    if (ns < 1e6) return {name, significant(ns / 1e3), "us"};
    if (ns < 1e9) return {name, significant(ns / 1e6), "ms"};
    return {name, significant(ns / 1e9), "sec"};
}

Line costLine(const std::string& name, double secPerGb) {
    const double ns = secPerGb * 1e9;
    if (ns < 1000.0) return {name, significant(ns), "ns/GB"};
    if (ns < 1e6) return {name, significant(ns / 1e3), "us/GB"};
    if (ns < 1e9) return {name, significant(ns / 1e6), "ms/GB"};
    return {name, significant(secPerGb), "sec/GB"};
}

double num(const QJsonObject& o, const char* key) {
    return o.value(key).toDouble();
}

}  // namespace

std::string qperfSize(uint64_t bytes) {
    struct Unit {
        uint64_t factor;
        const char* name;
    };
    static const Unit kUnits[] = {{1ULL << 30, "GiB"},   {1ULL << 20, "MiB"}, {1ULL << 10, "KiB"},
                                  {1000000000ULL, "GB"}, {1000000ULL, "MB"},  {1000ULL, "KB"}};
    for (const Unit& u : kUnits) {
        if (bytes >= u.factor && bytes % u.factor == 0) {
            return std::to_string(bytes / u.factor) + " " + u.name + " (" + commaGrouped(bytes) + ")";
        }
    }
    return std::to_string(bytes) + " bytes";
}

std::string formatQperfBlock(const RunResult& r, const QperfVerbosity& v) {
    const QJsonObject& s = r.summary;
    const bool latency = r.workload == "tcp_lat";
    std::vector<Line> lines;
    if (latency) {
        lines.push_back(timeLine("latency", num(s, "latency_us") * 1000.0, v.oneUnit));
        if (v.latencyPercentiles) {
            lines.push_back(timeLine("latency_p50", num(s, "p50_us") * 1000.0, v.oneUnit));
            lines.push_back(timeLine("latency_p90", num(s, "p90_us") * 1000.0, v.oneUnit));
            lines.push_back(timeLine("latency_p99", num(s, "p99_us") * 1000.0, v.oneUnit));
            lines.push_back(timeLine("latency_p99.9", num(s, "p999_us") * 1000.0, v.oneUnit));
            lines.push_back(timeLine("latency_max", num(s, "max_us") * 1000.0, v.oneUnit));
        }
    } else if (v.oneUnit) {
        lines.push_back({"bw", significant(num(s, "bw_MBps")), "MB/sec"});
    } else {
        lines.push_back(scaled("bw", num(s, "bw_MBps") * 1e6, {"bytes/sec", "KB/sec", "MB/sec", "GB/sec", "TB/sec"}));
    }
    if (v.stats) lines.push_back(scaled("msg_rate", num(s, "msg_rate"), {"/sec", "K/sec", "M/sec", "G/sec"}));
    if (v.user > 0) {
        lines.push_back({"msg_size", qperfSize(static_cast<uint64_t>(r.params.value("msg_size").toDouble())), ""});
        lines.push_back({"time", significant(r.params.value("duration_ms").toDouble() / 1000.0), "sec"});
    }
    if (v.user > 1) {
        lines.push_back({"timeout", significant(r.params.value("timeout_ms").toDouble() / 1000.0), "sec"});
        lines.push_back({"warmup", significant(r.params.value("warmup_ms").toDouble() / 1000.0), "sec"});
    }
    if (v.cpu) {
        if (latency) {
            lines.push_back({"loc_cpus_used", significant(num(s, "loc_cpus_used")), "% cpus"});
            lines.push_back({"rem_cpus_used", significant(num(s, "rem_cpus_used")), "% cpus"});
        } else {
            lines.push_back(costLine("send_cost", num(s, "send_cost_sec_per_GB")));
            lines.push_back(costLine("recv_cost", num(s, "recv_cost_sec_per_GB")));
            lines.push_back({"send_cpus_used", significant(num(s, "send_cpus_used")), "% cpus"});
            lines.push_back({"recv_cpus_used", significant(num(s, "recv_cpus_used")), "% cpus"});
        }
    }
    // msg_size's value is "64 KiB (65,536)": align on its number, like qperf.
    size_t nameWidth = 0, valueWidth = 0;
    for (Line& line : lines) {
        if (line.unit.empty()) {
            const size_t space = line.value.find(' ');
            if (space != std::string::npos) {
                line.unit = line.value.substr(space + 1);
                line.value.resize(space);
            }
        }
        nameWidth = std::max(nameWidth, line.name.size());
        valueWidth = std::max(valueWidth, line.value.size());
    }
    std::string out = r.workload + ":\n";
    for (const Line& line : lines) {
        out += "    " + line.name + std::string(nameWidth - line.name.size(), ' ') + "  =  ";
        out += std::string(valueWidth - line.value.size(), ' ') + line.value;
        if (!line.unit.empty()) out += " " + line.unit;
        out += "\n";
    }
    return out;
}

}  // namespace smclab::workloads
