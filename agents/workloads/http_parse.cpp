#include "http_parse.h"

#include <cctype>

namespace smclab::workloads::http {

namespace {

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    }
    return true;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

bool containsToken(std::string_view value, std::string_view token) {
    size_t start = 0;
    while (start <= value.size()) {
        size_t comma = value.find(',', start);
        if (comma == std::string_view::npos) comma = value.size();
        if (iequals(trim(value.substr(start, comma - start)), token)) return true;
        start = comma + 1;
    }
    return false;
}

std::optional<uint64_t> parseDecimal(std::string_view s) {
    s = trim(s);
    if (s.empty() || s.size() > 18) return std::nullopt;
    uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    return v;
}

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Calls onHeader(name, value) for each header line between the first line and the blank line.
template <typename F>
bool forEachHeader(std::string_view head, F onHeader) {
    size_t pos = head.find("\r\n");
    while (pos != std::string_view::npos) {
        pos += 2;
        const size_t end = head.find("\r\n", pos);
        if (end == std::string_view::npos || end == pos) break;
        const std::string_view line = head.substr(pos, end - pos);
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0) return false;
        onHeader(line.substr(0, colon), trim(line.substr(colon + 1)));
        pos = end;
    }
    return true;
}

}  // namespace

RequestParse parseRequest(std::string_view bytes) {
    RequestParse out;
    const size_t end = bytes.find("\r\n\r\n");
    if (end == std::string_view::npos) {
        if (bytes.size() > kMaxHeadBytes) {
            out.state = ParseState::error;
            out.errorStatus = 431;
            out.errorReason = "request head too large";
        } else {
            out.state = ParseState::incomplete;
        }
        return out;
    }
    const std::string_view head = bytes.substr(0, end + 2);
    out.request.headBytes = end + 4;
    auto fail = [&](int status, const char* reason) {
        out.state = ParseState::error;
        out.errorStatus = status;
        out.errorReason = reason;
        return out;
    };
    const size_t lineEnd = head.find("\r\n");
    const std::string_view line = head.substr(0, lineEnd);
    const size_t sp1 = line.find(' ');
    const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || sp1 == 0 || sp2 == sp1 + 1) {
        return fail(400, "malformed request line");
    }
    out.request.method = std::string(line.substr(0, sp1));
    out.request.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
    const std::string_view version = line.substr(sp2 + 1);
    if (version == "HTTP/1.1") {
        out.request.minorVersion = 1;
        out.request.keepAlive = true;
    } else if (version == "HTTP/1.0") {
        out.request.minorVersion = 0;
        out.request.keepAlive = false;
    } else {
        return fail(505, "unsupported HTTP version");
    }
    bool chunked = false;
    bool badLength = false;
    const bool wellFormed = forEachHeader(head, [&](std::string_view name, std::string_view value) {
        if (iequals(name, "Connection")) {
            if (containsToken(value, "close")) out.request.keepAlive = false;
            if (containsToken(value, "keep-alive")) out.request.keepAlive = true;
        } else if (iequals(name, "Content-Length")) {
            auto n = parseDecimal(value);
            if (!n)
                badLength = true;
            else
                out.request.contentLength = *n;
        } else if (iequals(name, "Transfer-Encoding")) {
            chunked = true;
        }
    });
    if (!wellFormed) return fail(400, "malformed header line");
    if (badLength) return fail(400, "bad Content-Length");
    if (chunked) return fail(501, "chunked request bodies are not supported");
    out.state = ParseState::complete;
    return out;
}

ResponseParse parseResponseHead(std::string_view bytes) {
    ResponseParse out;
    const size_t end = bytes.find("\r\n\r\n");
    if (end == std::string_view::npos) {
        if (bytes.size() > kMaxHeadBytes) {
            out.state = ParseState::error;
            out.errorReason = "response head too large";
        } else {
            out.state = ParseState::incomplete;
        }
        return out;
    }
    const std::string_view head = bytes.substr(0, end + 2);
    out.head.headBytes = end + 4;
    // "HTTP/1.1 200 OK"
    if (head.size() < 12 || head.substr(0, 7) != "HTTP/1." || head[8] != ' ') {
        out.state = ParseState::error;
        out.errorReason = "malformed status line";
        return out;
    }
    const bool http10 = head[7] == '0';
    auto status = parseDecimal(head.substr(9, 3));
    if (!status) {
        out.state = ParseState::error;
        out.errorReason = "malformed status code";
        return out;
    }
    out.head.status = static_cast<int>(*status);
    out.head.close = http10;
    bool badLength = false;
    const bool wellFormed = forEachHeader(head, [&](std::string_view name, std::string_view value) {
        if (iequals(name, "Content-Length")) {
            auto n = parseDecimal(value);
            if (!n)
                badLength = true;
            else {
                out.head.hasContentLength = true;
                out.head.contentLength = *n;
            }
        } else if (iequals(name, "Connection")) {
            if (containsToken(value, "close")) out.head.close = true;
            if (containsToken(value, "keep-alive")) out.head.close = false;
        } else if (iequals(name, "Transfer-Encoding")) {
            out.head.chunked = containsToken(value, "chunked");
        }
    });
    if (!wellFormed || badLength) {
        out.state = ParseState::error;
        out.errorReason = badLength ? "bad Content-Length" : "malformed header line";
        return out;
    }
    out.state = ParseState::complete;
    return out;
}

std::optional<std::string> targetToRelativePath(std::string_view target) {
    const size_t query = target.find_first_of("?#");
    if (query != std::string_view::npos) target = target.substr(0, query);
    if (target.empty() || target.front() != '/') return std::nullopt;
    std::string decoded;
    for (size_t i = 0; i < target.size(); ++i) {
        char c = target[i];
        if (c == '%') {
            if (i + 2 >= target.size()) return std::nullopt;
            const int hi = hexValue(target[i + 1]);
            const int lo = hexValue(target[i + 2]);
            if (hi < 0 || lo < 0) return std::nullopt;
            c = static_cast<char>(hi * 16 + lo);
            i += 2;
        }
        if (c == '\0' || c == '\\') return std::nullopt;
        decoded += c;
    }
    // Check every segment after decoding, so "%2e%2e" is caught too.
    std::string out;
    size_t pos = 1;
    while (pos <= decoded.size()) {
        size_t slash = decoded.find('/', pos);
        if (slash == std::string::npos) slash = decoded.size();
        const std::string segment = decoded.substr(pos, slash - pos);
        if (segment == "..") return std::nullopt;
        if (!segment.empty() && segment != ".") {
            if (!out.empty()) out += '/';
            out += segment;
        }
        pos = slash + 1;
    }
    if (decoded.back() == '/') out += out.empty() ? "index.html" : "/index.html";
    return out;
}

}  // namespace smclab::workloads::http
