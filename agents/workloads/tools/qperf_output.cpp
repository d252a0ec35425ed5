#include "qperf_output.h"

#include <QString>

#include "tool_text.h"

namespace smclab::workloads {

namespace {

using namespace tooltext;

struct Unit {
    std::string_view text;
    double factor;
};

// qperf scales by 1000 (its MB is 10^6 bytes) and prints these units only.
constexpr Unit kRateUnits[] = {{"B/sec", 1}, {"KB/sec", 1e3}, {"MB/sec", 1e6}, {"GB/sec", 1e9}, {"TB/sec", 1e12}};
constexpr Unit kTimeUnitsSec[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"sec", 1}};
constexpr Unit kCountRateUnits[] = {{"/sec", 1}, {"K/sec", 1e3}, {"M/sec", 1e6}, {"G/sec", 1e9}};
constexpr Unit kCostUnitsMs[] = {{"ns/GB", 1e-6}, {"us/GB", 1e-3}, {"ms/GB", 1}, {"sec/GB", 1e3}};
constexpr Unit kByteUnits[] = {{"bytes", 1}, {"B", 1}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}};

template <size_t N>
std::optional<double> scaled(double value, std::string_view unit, const Unit (&units)[N]) {
    for (const Unit& u : units) {
        if (u.text == unit) return value * u.factor;
    }
    return std::nullopt;
}

// "64 KiB (65,536)" / "1 bytes" / "1 KB (1,000)": the exact count when given.
std::optional<double> messageSize(const std::vector<std::string_view>& parts) {
    if (parts.size() == 2 && parts[1] == "bytes") return number(parts[0]);
    if (parts.size() == 3 && startsWith(parts[2], "(") && endsWith(parts[2], ")")) {
        return number(parts[2].substr(1, parts[2].size() - 2));
    }
    return std::nullopt;
}

smcr::Unexpected lineError(size_t index, std::string_view line, const std::string& why) {
    return smcr::fail(smcr::Errc::malformed, "qperf output: " + quoteLine(index, line) + ": " + why);
}

// One "name = value unit" figure into `figures`, or why not.
std::optional<std::string> addFigure(std::string_view name, std::string_view valueText, QJsonObject& figures) {
    const std::vector<std::string_view> parts = tokens(valueText);
    if (parts.empty()) return "no value";
    const std::optional<double> value = number(parts[0]);
    const std::string_view unitText =
        parts.size() >= 2 ? trim(valueText.substr(static_cast<size_t>(parts[1].data() - valueText.data())))
                          : std::string_view{};
    const QString key = QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
    auto put = [&](const QString& k, std::optional<double> v) -> std::optional<std::string> {
        if (!value) return "value is not a number";
        if (!v) return "unit \"" + std::string(unitText) + "\" is not one qperf prints for " + std::string(name);
        figures.insert(k, *v);
        return std::nullopt;
    };
    if (name == "bw") {
        auto bps = value ? scaled(*value, unitText, kRateUnits) : std::nullopt;
        return put(QStringLiteral("bw_MBps"), bps ? std::optional<double>(*bps / 1e6) : std::nullopt);
    }
    if (name == "latency") {
        auto sec = value ? scaled(*value, unitText, kTimeUnitsSec) : std::nullopt;
        return put(QStringLiteral("latency_us"), sec ? std::optional<double>(*sec * 1e6) : std::nullopt);
    }
    if (name == "msg_rate") return put(key, value ? scaled(*value, unitText, kCountRateUnits) : std::nullopt);
    if (name == "msg_size") {
        if (!value) return "value is not a number";
        const auto bytes = messageSize(parts);
        if (!bytes) return "size \"" + std::string(trim(valueText)) + "\" is not in qperf's form";
        figures.insert(key, *bytes);
        return std::nullopt;
    }
    if (name == "time" || name == "timeout" || endsWith(name, "_real_time") || endsWith(name, "_cpu_time")) {
        return put(key + QStringLiteral("_sec"), value ? scaled(*value, unitText, kTimeUnitsSec) : std::nullopt);
    }
    if (endsWith(name, "_cost")) {
        return put(key + QStringLiteral("_ms_per_GB"), value ? scaled(*value, unitText, kCostUnitsMs) : std::nullopt);
    }
    if (name.find("_cpus_") != std::string_view::npos) {
        return put(key, value && unitText == "% cpus" ? value : std::nullopt);
    }
    if (endsWith(name, "_bytes")) return put(key, value ? scaled(*value, unitText, kByteUnits) : std::nullopt);
    if (endsWith(name, "_msgs")) return put(key, value && unitText.empty() ? value : std::nullopt);
    // -vc configuration (loc_node, rem_os ...): text, kept as printed.
    figures.insert(key, QString::fromUtf8(trim(valueText).data(), static_cast<qsizetype>(trim(valueText).size())));
    return std::nullopt;
}

std::optional<std::string> missingHeadline(const QperfBlock& block) {
    if (endsWith(block.test, "_bw") && !block.figures.contains(QStringLiteral("bw_MBps"))) return "bw";
    if (endsWith(block.test, "_lat") && !block.figures.contains(QStringLiteral("latency_us"))) return "latency";
    return std::nullopt;
}

}  // namespace

smcr::Result<std::vector<QperfBlock>> parseQperfOutput(std::string_view text) {
    std::vector<QperfBlock> blocks;
    const std::vector<std::string_view> all = lines(text);
    for (size_t i = 0; i < all.size(); ++i) {
        const std::string_view line = all[i];
        if (trim(line).empty()) continue;
        const bool indented = line.front() == ' ' || line.front() == '\t';
        if (!indented) {
            const std::string_view head = trim(line);
            if (!endsWith(head, ":") || head.find(' ') != std::string_view::npos) {
                return lineError(i, line, "expected a test name such as \"tcp_bw:\"");
            }
            if (!blocks.empty()) {
                if (auto missing = missingHeadline(blocks.back())) {
                    return lineError(i, line,
                                     "the " + blocks.back().test + " block before it has no " + *missing + " line");
                }
            }
            blocks.push_back({std::string(head.substr(0, head.size() - 1)), {}});
            continue;
        }
        if (blocks.empty()) return lineError(i, line, "a figure before any test name");
        const size_t eq = line.find('=');
        if (eq == std::string_view::npos) return lineError(i, line, "expected \"name = value unit\"");
        const std::string_view name = trim(line.substr(0, eq));
        if (name.empty() || name.find(' ') != std::string_view::npos) return lineError(i, line, "bad figure name");
        if (auto why = addFigure(name, line.substr(eq + 1), blocks.back().figures)) return lineError(i, line, *why);
    }
    if (blocks.empty())
        return smcr::fail(smcr::Errc::malformed, "qperf output: no test result in it (empty or cut off)");
    if (auto missing = missingHeadline(blocks.back())) {
        return smcr::fail(smcr::Errc::malformed, "qperf output: the last " + blocks.back().test + " block has no " +
                                                     *missing + " line (cut off?)");
    }
    return blocks;
}

}  // namespace smclab::workloads
