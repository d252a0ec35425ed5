#include "tool_text.h"

#include <charconv>

namespace smclab::workloads::tooltext {

std::vector<std::string_view> lines(std::string_view text) {
    std::vector<std::string_view> out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            if (start < text.size()) out.push_back(text.substr(start));
            break;
        }
        out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

std::string_view trim(std::string_view text) {
    const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
    while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
    return text;
}

std::optional<double> number(std::string_view token) {
    std::string digits;
    for (char c : token) {
        if (c != ',') digits.push_back(c);
    }
    if (digits.empty()) return std::nullopt;
    const char first = digits.front();
    if (!(first == '-' || first == '.' || (first >= '0' && first <= '9'))) return std::nullopt;
    double value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    if (value != value) return std::nullopt;  // NaN
    return value;
}

std::vector<std::string_view> tokens(std::string_view text) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
        const size_t start = i;
        while (i < text.size() && !(text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
        if (i > start) out.push_back(text.substr(start, i - start));
    }
    return out;
}

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && text.substr(0, prefix.size()) == prefix;
}

bool endsWith(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string quoteLine(size_t lineIndex, std::string_view line) {
    std::string shown(trim(line).substr(0, 80));
    return "line " + std::to_string(lineIndex + 1) + " \"" + shown + "\"";
}

}  // namespace smclab::workloads::tooltext
