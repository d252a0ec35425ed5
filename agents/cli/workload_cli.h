// Pieces shared by `smclab serve` and `smclab load`: endpoints, the
// transport options, a stop flag raised by SIGINT/SIGTERM, and mapping
// `--long-option VALUE` words onto a workload's parameter schema.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include <QJsonObject>

#include "args.h"
#include "transport.h"
#include "workload.h"

namespace smclab::cli {

struct Endpoint {
    std::string host;
    uint16_t port = 0;
};
// "ADDR:PORT", "[v6addr]:PORT", ":PORT" (any address). Port 0 is allowed
// only when allowZeroPort (servers: pick an ephemeral port).
std::optional<Endpoint> parseEndpoint(const std::string& text, bool allowZeroPort, std::string* error);

struct TransportChoice {
    std::string name = "tcp";
    transports::TransportOptions options;
};
// Consumes --transport NAME and --transport-opt KEY=VALUE; false if the
// current word is neither.
bool takeTransportOption(ArgCursor& cursor, TransportChoice& choice);
smcr::Result<std::shared_ptr<transports::Transport>> openTransport(const TransportChoice& choice);

// Consumes `option` ADDR:PORT (parseEndpoint) into `endpoint`; a bad one
// sets the cursor's error ("--connect: expected ADDR:PORT ..."). False if the
// current word is not the option.
bool takeEndpointOption(ArgCursor& cursor, const char* option, bool allowZeroPort, std::optional<Endpoint>& endpoint);

// A tool-style option that sets one numeric workload parameter, as the
// tools spell it (wrk's -c, redis-benchmark's -n, qperf's -t 10s).
enum class ParamKind {
    invalid = 0,
    count,       // a whole number
    durationMs,  // parseDurationMs: "10", "10s", "500ms", "1m"
    sizeBytes,   // parseSize: "64K", "1m"
};
struct ParamOption {
    const char* option;  // "-c", "--connections"
    const char* key;     // the schema's parameter ("connections")
    ParamKind kind;
};
// Consumes the first of `options` that the current word is, with its value,
// into params[key]; a bad value sets the cursor's error ("-c: expects a
// number, got 'x'", "-d: bad time 'x'", "-m: bad size 'x'"). False if the
// word is none of them. The options are tried in order (a one-letter option
// also takes "-cVALUE", so list long ones that share its letters first).
bool takeParamOption(ArgCursor& cursor, std::span<const ParamOption> options, QJsonObject& params);

// Set by SIGINT/SIGTERM once installStopSignals() ran.
const std::atomic<bool>& installStopSignals();

// Consumes "--some-name VALUE" (or "--flag" for a boolean) when the schema
// has "some_name"; stores the value as text for validateParams to check.
bool takeSchemaOption(ArgCursor& cursor, const workloads::ParamSchema& schema, QJsonObject& params);
// "msg_size: must be ..." -> "--msg-size: must be ..." for messages to the user.
std::string optionNamedError(const std::string& message);

// How a command spells a parameter in its errors: {"--duration-ms", "-d/--duration"}
// turns "--duration-ms: must be ..." into "-d/--duration: must be ...".
struct OptionAlias {
    const char* option;  // the schema's name as an option ("--duration-ms")
    const char* shown;   // what the user typed ("-d/--duration")
};
// validateParams, with a failure turned into the usage message the user
// should see: the field as an option (optionNamedError), then `aliases`.
smcr::Result<QJsonObject> validateOptions(const workloads::ParamSchema& schema, const QJsonObject& params,
                                          std::span<const OptionAlias> aliases);

// The client half of `smclab load`, one piece for every workload: opens
// the transport (openClientTransport; prints "smclab load: why" when it
// cannot), then runClientWorkload runs `workload` once against `peer` with
// validated parameters (no samples; SIGINT/SIGTERM stop it) and prints the
// result as one JSON line (json) or in the tool's layout (`toolText`).
// Returns kExitOk, or kExitFailure after "smclab load NAME: why".
std::shared_ptr<transports::Transport> openClientTransport(const TransportChoice& choice);
using ToolText = std::function<std::string(const workloads::RunResult&)>;
int runClientWorkload(const workloads::Workload& workload, const std::shared_ptr<transports::Transport>& transport,
                      const Endpoint& peer, const QJsonObject& params, bool json, const ToolText& toolText);

// Prints `smclab <command>: <message>` on stderr and returns kExitUsage.
int usageError(const char* command, const std::string& message);

}  // namespace smclab::cli
