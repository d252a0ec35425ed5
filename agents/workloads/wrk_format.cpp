#include "wrk_format.h"

#include <cctype>
#include <cstdio>

#include "tool_format.h"

namespace smclab::workloads {

namespace {

// wrk's print_units: the value right-aligned in `width`, with units taking
// the place of up to two trailing pad spaces so columns line up.
std::string units(const std::string& text, int width) {
    int pad = 2;
    const size_t len = text.size();
    if (len >= 1 && std::isalpha(static_cast<unsigned char>(text[len - 1]))) --pad;
    if (len >= 2 && std::isalpha(static_cast<unsigned char>(text[len - 2]))) --pad;
    width -= pad;
    char buf[128];
    std::snprintf(buf, sizeof buf, "%*.*s%.*s", width, width, text.c_str(), pad, "  ");
    return buf;
}

std::string row(const char* name, const std::string& mean, const std::string& stdev, const std::string& max,
                double within) {
    char head[32];
    std::snprintf(head, sizeof head, "    %-10s", name);
    char tail[32];
    std::snprintf(tail, sizeof tail, "%8.2f%%\n", within);
    return head + units(mean, 8) + units(stdev, 10) + units(max, 9) + tail;
}

std::string durationText(double ms) {
    char buf[32];
    if (ms >= 1000.0 && static_cast<uint64_t>(ms) % 1000 == 0) {
        std::snprintf(buf, sizeof buf, "%.0fs", ms / 1000.0);
    } else if (ms >= 1000.0) {
        std::snprintf(buf, sizeof buf, "%.1fs", ms / 1000.0);
    } else {
        std::snprintf(buf, sizeof buf, "%.0fms", ms);
    }
    return buf;
}

}  // namespace

std::string formatWrkReport(const RunResult& r, bool latencyDistribution) {
    const QJsonObject& s = r.summary;
    const QJsonObject rate = s.value("req_per_sec_thread").toObject();
    const QJsonObject errors = s.value("errors").toObject();
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "Running %s test @ %s\n",
                  durationText(r.params.value("duration_ms").toDouble()).c_str(),
                  s.value("url").toString().toStdString().c_str());
    out += line;
    std::snprintf(line, sizeof line, "  %d threads and %d connections\n", r.params.value("threads").toInt(),
                  r.params.value("connections").toInt());
    out += line;
    std::snprintf(line, sizeof line, "  Thread Stats%6s%11s%8s%12s\n", "Avg", "Stdev", "Max", "+/- Stdev");
    out += line;
    const HdrHistogram& h = r.latency;
    out += row("Latency", wrkTime(h.mean() / 1000.0), wrkTime(h.stdev() / 1000.0),
               wrkTime(static_cast<double>(h.max()) / 1000.0), s.value("latency_within_stdev_pct").toDouble());
    out += row("Req/Sec", metricScaled(rate.value("mean").toDouble()), metricScaled(rate.value("stdev").toDouble()),
               metricScaled(rate.value("max").toDouble()), rate.value("within_stdev_pct").toDouble());
    if (latencyDistribution) {
        out += "  Latency Distribution\n";
        for (double p : {50.0, 75.0, 90.0, 99.0}) {
            std::snprintf(line, sizeof line, "%7.0f%%", p);
            out += line + units(wrkTime(static_cast<double>(h.valueAtPercentile(p)) / 1000.0), 10) + "\n";
        }
    }
    std::snprintf(line, sizeof line, "  %.0f requests in %s, %s read\n", s.value("requests").toDouble(),
                  wrkTime(s.value("duration_sec").toDouble() * 1e6).c_str(),
                  binaryScaled(s.value("bytes").toDouble()).c_str());
    out += line;
    const int connectErr = errors.value("connect").toInt(), readErr = errors.value("read").toInt(),
              writeErr = errors.value("write").toInt(), timeoutErr = errors.value("timeout").toInt();
    if (connectErr || readErr || writeErr || timeoutErr) {
        std::snprintf(line, sizeof line, "  Socket errors: connect %d, read %d, write %d, timeout %d\n", connectErr,
                      readErr, writeErr, timeoutErr);
        out += line;
    }
    if (errors.value("status").toInt() > 0) {
        std::snprintf(line, sizeof line, "  Non-2xx or 3xx responses: %d\n", errors.value("status").toInt());
        out += line;
    }
    std::snprintf(line, sizeof line, "Requests/sec: %9.2f\n", s.value("requests_per_sec").toDouble());
    out += line;
    // wrk prints "%10sB" with the B outside its number; ours carries the B.
    std::snprintf(line, sizeof line, "Transfer/sec: %11s\n",
                  binaryScaled(s.value("transfer_bytes_per_sec").toDouble()).c_str());
    out += line;
    return out;
}

}  // namespace smclab::workloads
