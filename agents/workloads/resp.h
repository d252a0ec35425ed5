// RESP (the Redis serialisation protocol, version 2) for the kv workload:
// the server's command parser (arrays of bulk strings, and inline commands
// as redis-cli/telnet send them) and the client's reply skipper.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace smclab::workloads::resp {

inline constexpr size_t kMaxArgs = size_t{1024} * 1024;
inline constexpr uint64_t kMaxBulkBytes = 64ULL << 20;
inline constexpr size_t kMaxInlineBytes = size_t{64} * 1024;

enum class Parse { invalid = 0, incomplete, complete, error };

struct Command {
    std::vector<std::string_view> args;  // point into the parsed buffer
    size_t consumed = 0;                 // bytes of this command
    std::string error;                   // protocol error text when Parse::error
};

// Parses one command at the start of `bytes`.
Parse parseCommand(std::string_view bytes, Command& out);

// Skips one complete reply at the start of `bytes` (any type, nested
// arrays included). Sets *consumed, and *isError for a "-" reply.
Parse skipReply(std::string_view bytes, size_t* consumed, bool* isError);

// Reply builders (append to `out`).
void appendSimple(std::string& out, std::string_view text);  // +text
void appendError(std::string& out, std::string_view text);   // -text
void appendInteger(std::string& out, int64_t value);         // :n
void appendBulk(std::string& out, std::string_view value);   // $len value
void appendNullBulk(std::string& out);                       // $-1
void appendArrayHeader(std::string& out, size_t count);      // *n

// A command as an array of bulk strings.
std::string encodeCommand(const std::vector<std::string_view>& args);

}  // namespace smclab::workloads::resp
