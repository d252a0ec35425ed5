#include "redis_output.h"

#include <string>

#include <QJsonArray>
#include <QString>

#include "tool_text.h"

namespace smclab::workloads {

namespace {

using namespace tooltext;

smcr::Unexpected lineError(size_t index, std::string_view line, const std::string& why) {
    return smcr::fail(smcr::Errc::malformed, "redis-benchmark output: " + quoteLine(index, line) + ": " + why);
}

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// After the last carriage return: what the terminal finally showed.
std::string_view shown(std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    const size_t cr = line.rfind('\r');
    return trim(cr == std::string_view::npos ? line : line.substr(cr + 1));
}

// "SET: 26490.07 requests per second, p50=0.303 msec" (p50 since redis 7;
// 6.2 prints only the rate).
std::optional<QJsonObject> quietLine(std::string_view line) {
    const size_t colon = line.find(": ");
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    const std::string_view name = line.substr(0, colon);
    const std::vector<std::string_view> t = tokens(line.substr(colon + 2));
    if (t.size() < 4 || t[1] != "requests" || t[2] != "per" || !startsWith(t[3], "second")) return std::nullopt;
    const auto rps = number(t[0]);
    if (!rps) return std::nullopt;
    QJsonObject test{{"test", qs(name)}, {"rps", *rps}};
    if (t[3] == "second," && t.size() == 6 && startsWith(t[4], "p50=") && t[5] == "msec") {
        const auto p50 = number(t[4].substr(4));
        if (!p50) return std::nullopt;
        test.insert("p50_latency_ms", *p50);
    } else if (!(t[3] == "second" && t.size() == 4)) {
        return std::nullopt;
    }
    return test;
}

std::optional<std::vector<std::string_view>> csvFields(std::string_view line) {
    std::vector<std::string_view> out;
    while (!line.empty()) {
        if (line.front() != '"') return std::nullopt;
        const size_t close = line.find('"', 1);
        if (close == std::string_view::npos) return std::nullopt;
        out.push_back(line.substr(1, close - 1));
        line.remove_prefix(close + 1);
        if (line.empty()) break;
        if (line.front() != ',') return std::nullopt;
        line.remove_prefix(1);
    }
    return out;
}

constexpr const char* kCsvHeader[] = {
    "test",           "rps",           "avg_latency_ms", "min_latency_ms", "p50_latency_ms", "p95_latency_ms",
    "p99_latency_ms", "max_latency_ms"};

}  // namespace

smcr::Result<QJsonObject> parseRedisBenchmarkOutput(std::string_view text, RedisBenchmarkForm form) {
    QJsonArray tests;
    QJsonArray warnings;
    bool haveHeader = false;
    const std::vector<std::string_view> all = lines(text);
    for (size_t i = 0; i < all.size(); ++i) {
        const std::string_view line = shown(all[i]);
        if (line.empty()) continue;
        if (startsWith(line, "WARNING:")) {
            warnings.append(qs(line));
            continue;
        }
        if (form == RedisBenchmarkForm::quiet) {
            if (auto test = quietLine(line)) {
                tests.append(*test);
                continue;
            }
            if (line.find(": rps=") != std::string_view::npos) {
                return lineError(i, line, "a progress line without the test's final line (cut off?)");
            }
            return lineError(i, line, "not a \"TEST: N requests per second, p50=X msec\" line");
        }
        const auto fields = csvFields(line);
        if (!fields) return lineError(i, line, "not a quoted CSV line");
        if (!haveHeader) {
            bool same = fields->size() == std::size(kCsvHeader);
            for (size_t k = 0; same && k < fields->size(); ++k) same = (*fields)[k] == kCsvHeader[k];
            if (!same) return lineError(i, line, "not redis-benchmark's CSV header");
            haveHeader = true;
            continue;
        }
        if (fields->size() != std::size(kCsvHeader)) {
            return lineError(i, line, "has " + std::to_string(fields->size()) + " fields, the header 8 (cut off?)");
        }
        QJsonObject test{{"test", qs((*fields)[0])}};
        for (size_t k = 1; k < fields->size(); ++k) {
            const auto v = number((*fields)[k]);
            if (!v) return lineError(i, line, std::string(kCsvHeader[k]) + " is not a number");
            test.insert(QLatin1String(kCsvHeader[k]), *v);
        }
        tests.append(test);
    }
    if (tests.isEmpty()) {
        return smcr::fail(
            smcr::Errc::malformed,
            warnings.isEmpty()
                ? std::string("redis-benchmark output: no test result in it (empty or cut off)")
                : "redis-benchmark output: no test result; it said: " + warnings.first().toString().toStdString());
    }
    QJsonObject out{{"tests", tests}};
    if (!warnings.isEmpty()) out.insert("warnings", warnings);
    return out;
}

}  // namespace smclab::workloads
