#include "resp.h"

namespace smclab::workloads::resp {

namespace {

// Reads "<digits>\r\n" (optionally negative) at bytes[pos]; returns false if
// incomplete (*incomplete) or malformed.
bool readNumberLine(std::string_view bytes, size_t pos, int64_t* value, size_t* next, bool* incomplete) {
    const size_t end = bytes.find("\r\n", pos);
    if (end == std::string_view::npos) {
        *incomplete = bytes.size() - pos < 24;  // a longer line without CRLF is garbage
        return false;
    }
    *incomplete = false;
    size_t i = pos;
    bool negative = false;
    if (i < end && bytes[i] == '-') {
        negative = true;
        ++i;
    }
    if (i == end || end - i > 18) return false;
    int64_t v = 0;
    for (; i < end; ++i) {
        const char c = bytes[i];
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    *value = negative ? -v : v;
    *next = end + 2;
    return true;
}

Parse parseInline(std::string_view bytes, Command& out) {
    const size_t end = bytes.find('\n');
    if (end == std::string_view::npos) {
        if (bytes.size() > kMaxInlineBytes) {
            out.error = "Protocol error: too big inline request";
            return Parse::error;
        }
        return Parse::incomplete;
    }
    std::string_view line = bytes.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.args.clear();
    size_t pos = 0;
    while (pos < line.size()) {
        while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
        const size_t start = pos;
        while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') ++pos;
        if (pos > start) out.args.push_back(line.substr(start, pos - start));
    }
    out.consumed = end + 1;
    return Parse::complete;
}

}  // namespace

Parse parseCommand(std::string_view bytes, Command& out) {
    out.args.clear();
    out.error.clear();
    if (bytes.empty()) return Parse::incomplete;
    if (bytes[0] != '*') return parseInline(bytes, out);
    int64_t count = 0;
    size_t pos = 0;
    bool incomplete = false;
    if (!readNumberLine(bytes, 1, &count, &pos, &incomplete)) {
        if (incomplete) return Parse::incomplete;
        out.error = "Protocol error: invalid multibulk length";
        return Parse::error;
    }
    if (count < 0 || static_cast<uint64_t>(count) > kMaxArgs) {
        out.error = "Protocol error: invalid multibulk length";
        return Parse::error;
    }
    for (int64_t i = 0; i < count; ++i) {
        if (pos >= bytes.size()) return Parse::incomplete;
        if (bytes[pos] != '$') {
            out.error = std::string("Protocol error: expected '$', got '") + bytes[pos] + "'";
            return Parse::error;
        }
        int64_t len = 0;
        size_t dataPos = 0;
        if (!readNumberLine(bytes, pos + 1, &len, &dataPos, &incomplete)) {
            if (incomplete) return Parse::incomplete;
            out.error = "Protocol error: invalid bulk length";
            return Parse::error;
        }
        if (len < 0 || static_cast<uint64_t>(len) > kMaxBulkBytes) {
            out.error = "Protocol error: invalid bulk length";
            return Parse::error;
        }
        const size_t ulen = static_cast<size_t>(len);
        if (bytes.size() < dataPos + ulen + 2) return Parse::incomplete;
        if (bytes[dataPos + ulen] != '\r' || bytes[dataPos + ulen + 1] != '\n') {
            out.error = "Protocol error: bulk string not terminated by CRLF";
            return Parse::error;
        }
        out.args.push_back(bytes.substr(dataPos, ulen));
        pos = dataPos + ulen + 2;
    }
    out.consumed = pos;
    return Parse::complete;
}

Parse skipReply(std::string_view bytes, size_t* consumed, bool* isError) {
    // Iterative walk: `pending` counts replies still to skip (arrays add theirs).
    size_t pos = 0;
    uint64_t pending = 1;
    *isError = false;
    bool first = true;
    while (pending > 0) {
        if (pos >= bytes.size()) return Parse::incomplete;
        const char type = bytes[pos];
        if (first && type == '-') *isError = true;
        first = false;
        --pending;
        switch (type) {
            case '+':
            case '-':
            case ':': {
                const size_t end = bytes.find("\r\n", pos);
                if (end == std::string_view::npos) return Parse::incomplete;
                pos = end + 2;
                break;
            }
            case '$':
            case '*': {
                int64_t n = 0;
                size_t next = 0;
                bool incomplete = false;
                if (!readNumberLine(bytes, pos + 1, &n, &next, &incomplete)) {
                    return incomplete ? Parse::incomplete : Parse::error;
                }
                pos = next;
                if (type == '$' && n >= 0) {
                    if (bytes.size() < pos + static_cast<size_t>(n) + 2) return Parse::incomplete;
                    pos += static_cast<size_t>(n) + 2;
                } else if (type == '*' && n > 0) {
                    pending += static_cast<uint64_t>(n);
                }
                break;
            }
            default:
                return Parse::error;
        }
    }
    *consumed = pos;
    return Parse::complete;
}

void appendSimple(std::string& out, std::string_view text) {
    out += '+';
    out += text;
    out += "\r\n";
}

void appendError(std::string& out, std::string_view text) {
    out += '-';
    out += text;
    out += "\r\n";
}

void appendInteger(std::string& out, int64_t value) {
    out += ':';
    out += std::to_string(value);
    out += "\r\n";
}

void appendBulk(std::string& out, std::string_view value) {
    out += '$';
    out += std::to_string(value.size());
    out += "\r\n";
    out += value;
    out += "\r\n";
}

void appendNullBulk(std::string& out) {
    out += "$-1\r\n";
}

void appendArrayHeader(std::string& out, size_t count) {
    out += '*';
    out += std::to_string(count);
    out += "\r\n";
}

std::string encodeCommand(const std::vector<std::string_view>& args) {
    std::string out;
    appendArrayHeader(out, args.size());
    for (std::string_view a : args) appendBulk(out, a);
    return out;
}

}  // namespace smclab::workloads::resp
