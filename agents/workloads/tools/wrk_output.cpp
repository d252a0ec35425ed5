#include "wrk_output.h"

#include <optional>
#include <string>

#include <QString>

#include "tool_text.h"

namespace smclab::workloads {

namespace {

using namespace tooltext;

struct Suffix {
    std::string_view text;
    double factor;
};

// wrk's units (src/units.c): time in us/ms/s/m/h, sizes in 1024 steps,
// counts in 1000 steps.
constexpr Suffix kTimeUs[] = {{"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"m", 60e6}, {"h", 3600e6}};
constexpr Suffix kBytes[] = {
    {"KB", 1024.0}, {"MB", 1024.0 * 1024}, {"GB", 1024.0 * 1024 * 1024}, {"TB", 1024.0 * 1024 * 1024 * 1024}, {"B", 1}};
constexpr Suffix kCount[] = {{"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}};

template <size_t N>
std::optional<double> withSuffix(std::string_view token, const Suffix (&suffixes)[N], bool bareAllowed) {
    for (const Suffix& s : suffixes) {
        if (endsWith(token, s.text)) {
            const auto v = number(token.substr(0, token.size() - s.text.size()));
            if (v) return *v * s.factor;
        }
    }
    return bareAllowed ? number(token) : std::nullopt;
}

smcr::Unexpected lineError(size_t index, std::string_view line, const std::string& why) {
    return smcr::fail(smcr::Errc::malformed, "wrk output: " + quoteLine(index, line) + ": " + why);
}

// "Socket errors: connect 0, read 5, write 0, timeout 0"
bool parseSocketErrors(std::string_view rest, QJsonObject& errors) {
    const std::vector<std::string_view> parts = tokens(rest);
    if (parts.size() != 8) return false;
    const char* names[] = {"connect", "read", "write", "timeout"};
    for (int i = 0; i < 4; ++i) {
        std::string_view label = parts[static_cast<size_t>(i) * 2];
        std::string_view count = parts[static_cast<size_t>(i) * 2 + 1];
        if (endsWith(count, ",")) count.remove_suffix(1);
        const auto v = number(count);
        if (label != names[i] || !v) return false;
        errors.insert(QLatin1String(names[i]), *v);
    }
    return true;
}

}  // namespace

smcr::Result<QJsonObject> parseWrkOutput(std::string_view text, bool latencyExpected) {
    QJsonObject out;
    QJsonObject errors{{"connect", 0}, {"read", 0}, {"write", 0}, {"timeout", 0}, {"status", 0}};
    bool inDistribution = false;
    int percentiles = 0;
    bool haveRunning = false, haveRequests = false, haveRps = false, haveTransfer = false;
    const std::vector<std::string_view> all = lines(text);
    for (size_t i = 0; i < all.size(); ++i) {
        const std::string_view line = trim(all[i]);
        if (line.empty()) continue;
        const std::vector<std::string_view> t = tokens(line);
        if (startsWith(line, "unable to connect")) return lineError(i, line, "wrk could not connect");
        if (startsWith(line, "Running ")) {
            haveRunning = true;
            const size_t at = line.find(" @ ");
            if (at != std::string_view::npos)
                out.insert("url",
                           QString::fromUtf8(line.substr(at + 3).data(), static_cast<qsizetype>(line.size() - at - 3)));
            continue;
        }
        if (!haveRunning) return lineError(i, line, "expected wrk's \"Running ... test @ URL\" first");
        if (haveTransfer) return lineError(i, line, "text after Transfer/sec");
        if (t.size() == 5 && t[1] == "threads" && t[2] == "and" && t[4] == "connections") {
            const auto threads = number(t[0]);
            const auto connections = number(t[3]);
            if (!threads || !connections) return lineError(i, line, "thread or connection count is not a number");
            out.insert("threads", *threads);
            out.insert("connections", *connections);
            continue;
        }
        if (startsWith(line, "Thread Stats")) continue;
        if (t.size() == 5 && t[0] == "Latency") {
            const auto avg = withSuffix(t[1], kTimeUs, false);
            const auto stdev = withSuffix(t[2], kTimeUs, false);
            const auto max = withSuffix(t[3], kTimeUs, false);
            if (!avg || !stdev || !max) return lineError(i, line, "latency figures need wrk's time units");
            out.insert("latency_avg_us", *avg);
            out.insert("latency_stdev_us", *stdev);
            out.insert("latency_max_us", *max);
            continue;
        }
        if (t.size() == 5 && t[0] == "Req/Sec") {
            const auto avg = withSuffix(t[1], kCount, true);
            const auto stdev = withSuffix(t[2], kCount, true);
            const auto max = withSuffix(t[3], kCount, true);
            if (!avg || !stdev || !max) return lineError(i, line, "Req/Sec figures are not numbers");
            out.insert("req_per_sec_thread", QJsonObject{{"mean", *avg}, {"stdev", *stdev}, {"max", *max}});
            continue;
        }
        if (line == "Latency Distribution") {
            inDistribution = true;
            continue;
        }
        if (inDistribution && t.size() == 2 && endsWith(t[0], "%")) {
            const auto pct = number(t[0].substr(0, t[0].size() - 1));
            const auto us = withSuffix(t[1], kTimeUs, false);
            if (!pct || !us) return lineError(i, line, "percentile line is not \"NN%  TIME\"");
            out.insert(QStringLiteral("p%1_us").arg(static_cast<int>(*pct)), *us);
            ++percentiles;
            continue;
        }
        inDistribution = false;
        // "30068 requests in 1.10s, 124.34MB read"
        if (t.size() == 6 && t[1] == "requests" && t[2] == "in" && t[5] == "read" && endsWith(t[3], ",")) {
            const auto requests = number(t[0]);
            const auto us = withSuffix(t[3].substr(0, t[3].size() - 1), kTimeUs, false);
            const auto bytes = withSuffix(t[4], kBytes, false);
            if (!requests || !us || !bytes) return lineError(i, line, "request count, time or size does not parse");
            out.insert("requests", *requests);
            out.insert("duration_sec", *us / 1e6);
            out.insert("bytes_read", *bytes);
            haveRequests = true;
            continue;
        }
        if (startsWith(line, "Socket errors:")) {
            if (!parseSocketErrors(line.substr(14), errors))
                return lineError(i, line, "socket error counts do not parse");
            continue;
        }
        if (startsWith(line, "Non-2xx or 3xx responses:")) {
            const auto v = number(trim(line.substr(26)));
            if (!v) return lineError(i, line, "response count is not a number");
            errors.insert("status", *v);
            continue;
        }
        if (t.size() == 2 && t[0] == "Requests/sec:") {
            const auto v = number(t[1]);
            if (!v) return lineError(i, line, "Requests/sec is not a number");
            out.insert("requests_per_sec", *v);
            haveRps = true;
            continue;
        }
        if (t.size() == 2 && t[0] == "Transfer/sec:") {
            const auto v = withSuffix(t[1], kBytes, false);
            if (!v) return lineError(i, line, "Transfer/sec is not a size");
            out.insert("transfer_bytes_per_sec", *v);
            haveTransfer = true;
            continue;
        }
        return lineError(i, line, "not a line of wrk's report");
    }
    if (!haveRunning) return smcr::fail(smcr::Errc::malformed, "wrk output: empty (no \"Running\" line)");
    const char* missing = !haveRequests   ? "the \"N requests in T, S read\" line"
                          : !haveRps      ? "Requests/sec"
                          : !haveTransfer ? "Transfer/sec"
                                          : nullptr;
    if (missing != nullptr) return smcr::fail(smcr::Errc::malformed, std::string("wrk output: cut off, no ") + missing);
    if (latencyExpected && percentiles == 0) {
        return smcr::fail(smcr::Errc::malformed, "wrk output: no Latency Distribution although --latency was given");
    }
    double total = 0;
    for (auto it = errors.begin(); it != errors.end(); ++it) total += it.value().toDouble();
    out.insert("errors", errors);
    out.insert("errors_total", total);
    return out;
}

}  // namespace smclab::workloads
