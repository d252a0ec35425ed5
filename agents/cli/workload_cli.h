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
