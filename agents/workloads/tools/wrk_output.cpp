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

// What a line reader made of a line: not its kind, read, or of its kind
// but malformed (`why`).
struct Verdict {
    bool matched = false;
    const char* why = nullptr;
};
constexpr Verdict kNotMine{};
constexpr Verdict kRead{true, nullptr};
constexpr Verdict bad(const char* why) {
    return {true, why};
}

// The report as read so far.
struct WrkReport {
    QJsonObject out;
    QJsonObject errors{{"connect", 0}, {"read", 0}, {"write", 0}, {"timeout", 0}, {"status", 0}};
    bool inDistribution = false;
    int percentiles = 0;
    bool haveRunning = false, haveRequests = false, haveRps = false, haveTransfer = false;
};

using Tokens = std::vector<std::string_view>;

// "Running 10s test @ http://127.0.0.1:8080/"
Verdict readRunning(WrkReport& r, std::string_view line) {
    r.haveRunning = true;
    const size_t at = line.find(" @ ");
    if (at != std::string_view::npos)
        r.out.insert("url",
                     QString::fromUtf8(line.substr(at + 3).data(), static_cast<qsizetype>(line.size() - at - 3)));
    return kRead;
}

// "2 threads and 10 connections", then the Thread Stats table (Latency, Req/Sec).
Verdict readThreadStats(WrkReport& r, std::string_view line, const Tokens& t) {
    if (t.size() == 5 && t[1] == "threads" && t[2] == "and" && t[4] == "connections") {
        const auto threads = number(t[0]);
        const auto connections = number(t[3]);
        if (!threads || !connections) return bad("thread or connection count is not a number");
        r.out.insert("threads", *threads);
        r.out.insert("connections", *connections);
        return kRead;
    }
    if (startsWith(line, "Thread Stats")) return kRead;
    if (t.size() == 5 && t[0] == "Latency") {
        const auto avg = withSuffix(t[1], kTimeUs, false);
        const auto stdev = withSuffix(t[2], kTimeUs, false);
        const auto max = withSuffix(t[3], kTimeUs, false);
        if (!avg || !stdev || !max) return bad("latency figures need wrk's time units");
        r.out.insert("latency_avg_us", *avg);
        r.out.insert("latency_stdev_us", *stdev);
        r.out.insert("latency_max_us", *max);
        return kRead;
    }
    if (t.size() == 5 && t[0] == "Req/Sec") {
        const auto avg = withSuffix(t[1], kCount, true);
        const auto stdev = withSuffix(t[2], kCount, true);
        const auto max = withSuffix(t[3], kCount, true);
        if (!avg || !stdev || !max) return bad("Req/Sec figures are not numbers");
        r.out.insert("req_per_sec_thread", QJsonObject{{"mean", *avg}, {"stdev", *stdev}, {"max", *max}});
        return kRead;
    }
    return kNotMine;
}

// "Latency Distribution" (--latency) and its "NN%  TIME" lines.
Verdict readDistribution(WrkReport& r, std::string_view line, const Tokens& t) {
    if (line == "Latency Distribution") {
        r.inDistribution = true;
        return kRead;
    }
    if (r.inDistribution && t.size() == 2 && endsWith(t[0], "%")) {
        const auto pct = number(t[0].substr(0, t[0].size() - 1));
        const auto us = withSuffix(t[1], kTimeUs, false);
        if (!pct || !us) return bad("percentile line is not \"NN%  TIME\"");
        r.out.insert(QStringLiteral("p%1_us").arg(static_cast<int>(*pct)), *us);
        ++r.percentiles;
        return kRead;
    }
    return kNotMine;
}

// The closing lines: totals, error counts, the two rates.
Verdict readTotals(WrkReport& r, std::string_view line, const Tokens& t) {
    // "30068 requests in 1.10s, 124.34MB read"
    if (t.size() == 6 && t[1] == "requests" && t[2] == "in" && t[5] == "read" && endsWith(t[3], ",")) {
        const auto requests = number(t[0]);
        const auto us = withSuffix(t[3].substr(0, t[3].size() - 1), kTimeUs, false);
        const auto bytes = withSuffix(t[4], kBytes, false);
        if (!requests || !us || !bytes) return bad("request count, time or size does not parse");
        r.out.insert("requests", *requests);
        r.out.insert("duration_sec", *us / 1e6);
        r.out.insert("bytes_read", *bytes);
        r.haveRequests = true;
        return kRead;
    }
    if (startsWith(line, "Socket errors:")) {
        return parseSocketErrors(line.substr(14), r.errors) ? kRead : bad("socket error counts do not parse");
    }
    if (startsWith(line, "Non-2xx or 3xx responses:")) {
        const auto v = number(trim(line.substr(26)));
        if (!v) return bad("response count is not a number");
        r.errors.insert("status", *v);
        return kRead;
    }
    if (t.size() == 2 && t[0] == "Requests/sec:") {
        const auto v = number(t[1]);
        if (!v) return bad("Requests/sec is not a number");
        r.out.insert("requests_per_sec", *v);
        r.haveRps = true;
        return kRead;
    }
    if (t.size() == 2 && t[0] == "Transfer/sec:") {
        const auto v = withSuffix(t[1], kBytes, false);
        if (!v) return bad("Transfer/sec is not a size");
        r.out.insert("transfer_bytes_per_sec", *v);
        r.haveTransfer = true;
        return kRead;
    }
    return kNotMine;
}

// One non-empty line, in the order wrk prints its report.
Verdict readLine(WrkReport& r, std::string_view line) {
    const Tokens t = tokens(line);
    if (startsWith(line, "unable to connect")) return bad("wrk could not connect");
    if (startsWith(line, "Running ")) return readRunning(r, line);
    if (!r.haveRunning) return bad("expected wrk's \"Running ... test @ URL\" first");
    if (r.haveTransfer) return bad("text after Transfer/sec");
    if (const Verdict v = readThreadStats(r, line, t); v.matched) return v;
    if (const Verdict v = readDistribution(r, line, t); v.matched) return v;
    r.inDistribution = false;
    return readTotals(r, line, t);
}

// The whole report read: every part there, then the error counts added up.
smcr::Result<QJsonObject> finishReport(WrkReport& r, bool latencyExpected) {
    if (!r.haveRunning) return smcr::fail(smcr::Errc::malformed, "wrk output: empty (no \"Running\" line)");
    const char* missing = !r.haveRequests   ? "the \"N requests in T, S read\" line"
                          : !r.haveRps      ? "Requests/sec"
                          : !r.haveTransfer ? "Transfer/sec"
                                            : nullptr;
    if (missing != nullptr) return smcr::fail(smcr::Errc::malformed, std::string("wrk output: cut off, no ") + missing);
    if (latencyExpected && r.percentiles == 0) {
        return smcr::fail(smcr::Errc::malformed, "wrk output: no Latency Distribution although --latency was given");
    }
    double total = 0;
    for (auto it = r.errors.begin(); it != r.errors.end(); ++it) total += it.value().toDouble();
    r.out.insert("errors", r.errors);
    r.out.insert("errors_total", total);
    return r.out;
}

}  // namespace

smcr::Result<QJsonObject> parseWrkOutput(std::string_view text, bool latencyExpected) {
    WrkReport report;
    const std::vector<std::string_view> all = lines(text);
    for (size_t i = 0; i < all.size(); ++i) {
        const std::string_view line = trim(all[i]);
        if (line.empty()) continue;
        const Verdict v = readLine(report, line);
        if (!v.matched) return lineError(i, line, "not a line of wrk's report");
        if (v.why != nullptr) return lineError(i, line, v.why);
    }
    return finishReport(report, latencyExpected);
}

}  // namespace smclab::workloads
