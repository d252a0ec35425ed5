#include "args.h"

#include <algorithm>
#include <charconv>

namespace smclab::cli {

std::string ArgCursor::unknownOption() const {
    if (!m_error.empty()) return m_error;
    return "unknown option '" + peek() + "'";
}

std::optional<std::string> ArgCursor::takeValue(const std::string& option) {
    if (done()) return std::nullopt;
    const std::string& word = m_args[m_index];
    if (word == option) {
        if (m_index + 1 >= m_args.size()) {
            setError("option " + option + " needs a value");
            ++m_index;
            return std::nullopt;
        }
        m_index += 2;
        return m_args[m_index - 1];
    }
    if (word.size() > option.size() && word.compare(0, option.size(), option) == 0) {
        // --name=value, or -tVALUE for one-letter short options.
        if (word[option.size()] == '=') {
            ++m_index;
            return word.substr(option.size() + 1);
        }
        if (option.size() == 2 && option[0] == '-' && option[1] != '-') {
            ++m_index;
            return word.substr(2);
        }
    }
    return std::nullopt;
}

bool ArgCursor::takeFlag(const std::string& option) {
    if (!done() && m_args[m_index] == option) {
        ++m_index;
        return true;
    }
    return false;
}

std::optional<int64_t> parseInt(const std::string& text) {
    int64_t value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

std::optional<uint64_t> parseSize(const std::string& text) {
    if (text.empty()) return std::nullopt;
    uint64_t multiplier = 1;
    std::string digits = text;
    const std::string lower = [&] {
        std::string s;
        for (char c : text) s += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
        return s;
    }();
    // Accept qperf's spellings: K/kib = 1024, k/kb = 1000.
    struct Suffix {
        const char* text;
        uint64_t factor;
        bool caseSensitive;
    };
    static const Suffix kSuffixes[] = {
        {"kib", 1024ULL, false}, {"mib", 1024ULL * 1024, false}, {"gib", 1024ULL * 1024 * 1024, false},
        {"kb", 1000ULL, false},  {"mb", 1000ULL * 1000, false},  {"gb", 1000ULL * 1000 * 1000, false},
        {"K", 1024ULL, true},    {"M", 1024ULL * 1024, true},    {"G", 1024ULL * 1024 * 1024, true},
        {"k", 1000ULL, true},    {"m", 1000ULL * 1000, true},    {"g", 1000ULL * 1000 * 1000, true},
    };
    for (const Suffix& s : kSuffixes) {
        const std::string suffix = s.text;
        const std::string& subject = s.caseSensitive ? text : lower;
        if (subject.size() > suffix.size() &&
            subject.compare(subject.size() - suffix.size(), suffix.size(), suffix) == 0) {
            multiplier = s.factor;
            digits = text.substr(0, text.size() - suffix.size());
            break;
        }
    }
    auto value = parseInt(digits);
    if (!value || *value < 0) return std::nullopt;
    return static_cast<uint64_t>(*value) * multiplier;
}

// "12" or "12.25" in units of unitMs: whole milliseconds only, so "0.0001"
// (a tenth of a millisecond) is refused rather than rounded to nothing.
static std::optional<uint64_t> decimalTimesUnit(const std::string& number, uint64_t unitMs) {
    const size_t dot = number.find('.');
    const std::string whole = number.substr(0, dot);
    const std::string fraction = dot == std::string::npos ? std::string() : number.substr(dot + 1);
    if ((whole.empty() && fraction.empty()) || fraction.size() > 9) return std::nullopt;
    if (dot != std::string::npos && fraction.empty()) return std::nullopt;  // "5."
    const auto digitsOnly = [](const std::string& t) {
        return std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (!digitsOnly(whole) || !digitsOnly(fraction) || whole.size() > 12) return std::nullopt;
    uint64_t ms = whole.empty() ? 0 : std::stoull(whole) * unitMs;
    if (!fraction.empty()) {
        uint64_t scale = 1;
        for (size_t i = 0; i < fraction.size(); ++i) scale *= 10;
        const uint64_t part = std::stoull(fraction) * unitMs;
        if (part % scale != 0) return std::nullopt;
        ms += part / scale;
    }
    return ms;
}

std::optional<uint64_t> parseDurationMs(const std::string& text) {
    struct Unit {
        const char* suffix;
        uint64_t ms;
    };
    static const Unit kUnits[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}, {"d", 86400000}};
    for (const Unit& u : kUnits) {
        const std::string suffix = u.suffix;
        if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
            return decimalTimesUnit(text.substr(0, text.size() - suffix.size()), u.ms);
        }
    }
    return decimalTimesUnit(text, 1000);  // bare seconds, as qperf's -t and redis-benchmark's
}

std::vector<std::string> splitList(const std::string& text, char separator) {
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        const size_t end = text.find(separator, start);
        out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) return out;
        start = end + 1;
    }
}

std::vector<uint64_t> SizeLoop::values() const {
    std::vector<uint64_t> out;
    for (uint64_t v = first; v <= last; v = multiply ? v * step : v + step) {
        out.push_back(v);
        if ((multiply && step <= 1) || (!multiply && step == 0)) break;
    }
    return out;
}

std::optional<SizeLoop> parseSizeLoop(const std::string& text, std::string* error) {
    // Var:Init:Last:Incr with Var optional (defaults to msg_size).
    std::vector<std::string> parts = splitList(text, ':');
    SizeLoop loop;
    if (parts.size() == 4) {
        loop.variable = parts[0];
        parts.erase(parts.begin());
    }
    if (parts.size() != 3) {
        if (error) *error = "-oo expects Var:Init:Last:Incr, got '" + text + "'";
        return std::nullopt;
    }
    auto first = parseSize(parts[0]);
    auto last = parseSize(parts[1]);
    std::string incr = parts[2];
    if (!incr.empty() && incr[0] == '*') {
        loop.multiply = true;
        incr.erase(0, 1);
    }
    auto step = parseSize(incr);
    if (!first || !last || !step || *first > *last || (loop.multiply && (*step < 2 || *first == 0)) ||
        (!loop.multiply && *step == 0)) {
        if (error) *error = "-oo: bad loop '" + text + "' (need Init<=Last and a growing Incr)";
        return std::nullopt;
    }
    loop.first = *first;
    loop.last = *last;
    loop.step = *step;
    return loop;
}

}  // namespace smclab::cli
