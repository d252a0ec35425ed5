// A small cursor over command-line words for tool-style options (qperf's
// "-oo msg_size:1:64K:*2", wrk's "-t2 -c10 -d5s", redis-benchmark's "-n").
// Each command parses its own options with it; errors name the option.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command.h"

namespace smclab::cli {

class ArgCursor {
public:
    explicit ArgCursor(const Args& args) : m_args(args) {}

    bool done() const { return m_index >= m_args.size(); }
    // The current word; empty once done (an option that lacked its value
    // consumed the last word).
    const std::string& peek() const { return done() ? m_none : m_args[m_index]; }
    std::string next() { return m_args[m_index++]; }

    // If the current word is `option` (or `option=VALUE`, or for a one-letter
    // option `-xVALUE`), consumes it and its value. Sets error() when the value
    // is missing.
    std::optional<std::string> takeValue(const std::string& option);
    bool takeFlag(const std::string& option);

    const std::string& error() const { return m_error; }
    // What to tell the user when no option matched the current word: the
    // missing value an option reported, else "unknown option 'WORD'".
    std::string unknownOption() const;
    void setError(std::string message) {
        if (m_error.empty()) m_error = std::move(message);
    }

private:
    const Args& m_args;
    size_t m_index = 0;
    std::string m_error;
    std::string m_none;
};

// "64K" = 65536 and "64k" = 64000 (qperf's rule), "1M"/"1m", "1G"/"1g".
std::optional<uint64_t> parseSize(const std::string& text);
// "10" or "10s", "500ms", "2m", "1h", and fractions of them ("0.1" and
// "1.5s" as qperf users write them, "0.5m"): returns whole milliseconds.
std::optional<uint64_t> parseDurationMs(const std::string& text);
std::optional<int64_t> parseInt(const std::string& text);
// "a,b,,c" -> {"a", "b", "", "c"}; "" -> {""}. Empty items stay, so a
// stray separator reaches the caller's check of each item.
std::vector<std::string> splitList(const std::string& text, char separator = ',');

// qperf's -oo Var:Init:Last:Incr loop; "*2" multiplies, "2" adds.
struct SizeLoop {
    std::string variable = "msg_size";
    uint64_t first = 0;
    uint64_t last = 0;
    uint64_t step = 0;
    bool multiply = false;
    std::vector<uint64_t> values() const;
};
std::optional<SizeLoop> parseSizeLoop(const std::string& text, std::string* error);

}  // namespace smclab::cli
