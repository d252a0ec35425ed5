// HTTP/1.1 message heads for the http workload: request parsing for the
// server, response-head parsing for the client, and the path rule that
// keeps the server inside its root. Pure functions over bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace smclab::workloads::http {

inline constexpr size_t kMaxHeadBytes = size_t{16} * 1024;

enum class ParseState { invalid = 0, incomplete, complete, error };

struct Request {
    std::string method;
    std::string target;     // as sent (path and query)
    int minorVersion = 1;   // HTTP/1.x
    bool keepAlive = true;  // HTTP/1.1 default; HTTP/1.0 needs "Connection: keep-alive"
    uint64_t contentLength = 0;
    size_t headBytes = 0;  // bytes of the request line and headers, CRLFCRLF included
};

struct RequestParse {
    ParseState state = ParseState::invalid;
    Request request;
    int errorStatus = 0;  // 400, 431, 501 ... when state == error
    std::string errorReason;
};

// Parses one request head at the start of `bytes`.
RequestParse parseRequest(std::string_view bytes);

struct ResponseHead {
    int status = 0;
    bool hasContentLength = false;
    uint64_t contentLength = 0;
    bool chunked = false;
    bool close = false;  // "Connection: close" or HTTP/1.0 without keep-alive
    size_t headBytes = 0;
};

struct ResponseParse {
    ParseState state = ParseState::invalid;
    ResponseHead head;
    std::string errorReason;
};

ResponseParse parseResponseHead(std::string_view bytes);

// Maps a request target to a relative file path under the root: strips the
// query, decodes %XX, refuses NUL, backslashes and any ".." segment (path
// traversal), and maps a trailing "/" to "index.html". Returns the path
// without a leading slash, or nullopt when the target must be refused.
std::optional<std::string> targetToRelativePath(std::string_view target);

}  // namespace smclab::workloads::http
