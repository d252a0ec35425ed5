#include "redis_format.h"

#include <cmath>
#include <cstdio>

#include <QJsonArray>

namespace smclab::workloads {

namespace {

double ms(uint64_t ns) {
    return static_cast<double>(ns) / 1e6;
}

std::string percentileSection(const HdrHistogram& h) {
    std::string out = "Latency by percentile distribution:\n";
    char line[160];
    const uint64_t total = h.count();
    if (total == 0) return out + "\n";
    double remaining = 100.0;
    uint64_t previousValue = UINT64_MAX;
    for (double p = 0.0;; p = 100.0 - (remaining /= 2.0)) {
        const uint64_t value = h.valueAtPercentile(p);
        const uint64_t cumulative = h.countAtOrBelow(value);
        // Like HdrHistogram's percentile iterator: one line per bucket reached.
        if (value == previousValue && cumulative < total) continue;
        previousValue = value;
        std::snprintf(line, sizeof line, "%3.3f%% <= %.3f milliseconds (cumulative count %llu)\n", p, ms(value),
                      static_cast<unsigned long long>(cumulative));
        out += line;
        if (cumulative >= total || remaining < 1e-4) break;
    }
    std::snprintf(line, sizeof line, "%3.3f%% <= %.3f milliseconds (cumulative count %llu)\n", 100.0,
                  ms(h.highestEquivalent(h.max())), static_cast<unsigned long long>(total));
    return out + line + "\n";
}

std::string cumulativeSection(const HdrHistogram& h) {
    std::string out = "Cumulative distribution of latencies:\n";
    const uint64_t total = h.count();
    uint64_t previous = 0;
    char line[160];
    for (uint64_t stepUs = 100; total > 0;) {
        const uint64_t thresholdNs = h.highestEquivalent(stepUs * 1000);
        const uint64_t cumulative = h.countAtOrBelow(thresholdNs);
        if (cumulative != previous) {
            std::snprintf(line, sizeof line, "%3.3f%% <= %.3f milliseconds (cumulative count %llu)\n",
                          100.0 * static_cast<double>(cumulative) / static_cast<double>(total), ms(thresholdNs),
                          static_cast<unsigned long long>(cumulative));
            out += line;
            previous = cumulative;
        }
        if (cumulative >= total) break;
        stepUs += stepUs < 2000 ? 100 : 1000;
    }
    return out + "\n";
}

}  // namespace

std::string formatRedisBenchmark(const RunResult& r, RedisOutput form) {
    const QJsonArray tests = r.summary.value("tests").toArray();
    std::string out;
    char line[512];
    if (form == RedisOutput::csv) {
        out +=
            "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_ms\","
            "\"p99_latency_ms\",\"max_latency_ms\"\n";
    }
    for (const QJsonValue& v : tests) {
        const QJsonObject t = v.toObject();
        const std::string name = t.value("test").toString().toStdString();
        const double rps = t.value("rps").toDouble();
        if (form == RedisOutput::quiet) {
            std::snprintf(line, sizeof line, "%s: %.2f requests per second, p50=%.3f msec\n", name.c_str(), rps,
                          t.value("p50_latency_ms").toDouble());
            out += line;
            continue;
        }
        if (form == RedisOutput::csv) {
            std::snprintf(line, sizeof line, "\"%s\",\"%.2f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\"\n",
                          name.c_str(), rps, t.value("avg_latency_ms").toDouble(), t.value("min_latency_ms").toDouble(),
                          t.value("p50_latency_ms").toDouble(), t.value("p95_latency_ms").toDouble(),
                          t.value("p99_latency_ms").toDouble(), t.value("max_latency_ms").toDouble());
            out += line;
            continue;
        }
        const QJsonObject config = r.summary.value("server_config").toObject();
        const int threads = r.summary.value("threads").toInt();
        std::snprintf(line, sizeof line,
                      "====== %s ======\n"
                      "  %.0f requests completed in %.2f seconds\n"
                      "  %d parallel clients\n"
                      "  %.0f bytes payload\n"
                      "  keep alive: %d\n"
                      "  host configuration \"save\": %s\n"
                      "  host configuration \"appendonly\": %s\n",
                      name.c_str(), t.value("requests").toDouble(), t.value("seconds").toDouble(),
                      r.summary.value("clients").toInt(), r.params.value("data_size").toDouble(),
                      r.params.value("keepalive").toBool() ? 1 : 0,
                      config.value("save").toString().toStdString().c_str(),
                      config.value("appendonly").toString().toStdString().c_str());
        out += line;
        if (threads > 1) {
            std::snprintf(line, sizeof line, "  multi-thread: yes\n  threads: %d\n\n", threads);
        } else {
            std::snprintf(line, sizeof line, "  multi-thread: no\n\n");
        }
        out += line;
        auto histogram =
            HdrHistogram::fromBytes(QByteArray::fromBase64(t.value("latency_hdr_base64").toString().toLatin1()));
        if (histogram) {
            out += percentileSection(*histogram);
            out += cumulativeSection(*histogram);
        }
        std::snprintf(line, sizeof line,
                      "Summary:\n"
                      "  throughput summary: %.2f requests per second\n"
                      "  latency summary (msec):\n"
                      "    %9s %9s %9s %9s %9s %9s\n"
                      "    %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n\n",
                      rps, "avg", "min", "p50", "p95", "p99", "max", t.value("avg_latency_ms").toDouble(),
                      t.value("min_latency_ms").toDouble(), t.value("p50_latency_ms").toDouble(),
                      t.value("p95_latency_ms").toDouble(), t.value("p99_latency_ms").toDouble(),
                      t.value("max_latency_ms").toDouble());
        out += line;
    }
    return out;
}

}  // namespace smclab::workloads
