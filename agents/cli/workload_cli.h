// Pieces shared by `smclab serve` and `smclab load`: endpoints, the
// transport options, a stop flag raised by SIGINT/SIGTERM, and mapping
// `--long-option VALUE` words onto a workload's parameter schema.
#pragma once

#include <atomic>
#include <optional>
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

// Prints `smclab <command>: <message>` on stderr and returns kExitUsage.
int usageError(const char* command, const std::string& message);

}  // namespace smclab::cli
