#include "iperf3_intervals.h"

#include <optional>

#include "tool_text.h"

namespace smclab::workloads {

namespace {

struct IntervalLine {
    bool sum = false;
    double startSec = 0;
    double endSec = 0;
    double bytes = 0;
};

// iperf3's Transfer column: "234 MBytes" (KBytes, MBytes, GBytes, TBytes are 2^10 steps).
std::optional<double> transferBytes(std::string_view number, std::string_view unit) {
    const auto value = tooltext::number(number);
    if (!value) return std::nullopt;
    double scale = 1;
    if (unit == "KBytes")
        scale = 1024.0;
    else if (unit == "MBytes")
        scale = 1024.0 * 1024;
    else if (unit == "GBytes")
        scale = 1024.0 * 1024 * 1024;
    else if (unit == "TBytes")
        scale = 1024.0 * 1024 * 1024 * 1024;
    else if (unit != "Bytes")
        return std::nullopt;
    return *value * scale;
}

std::optional<IntervalLine> intervalLine(std::string_view line) {
    line = tooltext::trim(line);
    if (!tooltext::startsWith(line, "[")) return std::nullopt;
    // "[  5]", "[SUM]", then an optional "[RX-S]" role.
    size_t close = line.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    IntervalLine out;
    out.sum = tooltext::trim(line.substr(1, close - 1)) == "SUM";
    std::string_view rest = line.substr(close + 1);
    if (tooltext::startsWith(rest, "[")) {
        close = rest.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        rest = rest.substr(close + 1);
    }
    const std::vector<std::string_view> t = tooltext::tokens(rest);
    // "0.00-0.50 sec 234 MBytes 3.91 Gbits/sec [retr cwnd] [sender|receiver]"
    if (t.size() < 6 || t[1] != "sec") return std::nullopt;
    if (t.back() == "sender" || t.back() == "receiver") return std::nullopt;
    const size_t dash = t[0].find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    const auto start = tooltext::number(t[0].substr(0, dash));
    const auto end = tooltext::number(t[0].substr(dash + 1));
    const auto bytes = transferBytes(t[2], t[3]);
    if (!start || !end || !bytes || *end <= *start) return std::nullopt;
    out.startSec = *start;
    out.endSec = *end;
    out.bytes = *bytes;
    return out;
}

}  // namespace

std::vector<Iperf3Interval> Iperf3IntervalText::feed(std::string_view more) {
    std::vector<Iperf3Interval> out;
    m_partial.append(more);
    size_t begin = 0;
    for (size_t nl; (nl = m_partial.find('\n', begin)) != std::string::npos; begin = nl + 1)
        takeLine(std::string_view(m_partial).substr(begin, nl - begin), out);
    m_partial.erase(0, begin);
    return out;
}

void Iperf3IntervalText::takeLine(std::string_view line, std::vector<Iperf3Interval>& out) {
    const auto interval = intervalLine(line);
    if (!interval) {
        // A separator, a header or a summary line: the interval before is complete.
        flush(out);
        return;
    }
    if (interval->startSec != m_startSec || interval->endSec != m_endSec) {
        flush(out);
        m_startSec = interval->startSec;
        m_endSec = interval->endSec;
    }
    if (interval->sum) {
        m_haveSum = true;
        m_sumBytes += interval->bytes;
    } else {
        m_streamBytes += interval->bytes;
    }
}

void Iperf3IntervalText::flush(std::vector<Iperf3Interval>& out) {
    if (m_endSec > m_startSec && m_startSec >= 0) {
        Iperf3Interval interval;
        interval.endSec = m_endSec;
        interval.seconds = m_endSec - m_startSec;
        interval.bytes = m_haveSum ? m_sumBytes : m_streamBytes;
        interval.bitsPerSecond = interval.bytes * 8 / interval.seconds;
        out.push_back(interval);
    }
    m_startSec = m_endSec = -1;
    m_streamBytes = m_sumBytes = 0;
    m_haveSum = false;
}

}  // namespace smclab::workloads
