// Strict parsing of controller -> agent messages: every field is checked
// (type, range, size, enum) and unknown fields are refused, so a typo such as
// "duraton_ms" is an error naming it rather than a silently ignored field.
// Workload params are checked here only for shape; their meaning is checked
// by the workload itself (the agent prefixes its errors with "params.").
#pragma once

#include <variant>

#include <QByteArray>

#include "protocol/messages.h"
#include "protocol/protocol_error.h"

namespace smclab::protocol {

struct StatusRequest {};

struct ControllerMessage {
    qint64 requestId = -1;  // the message's "id", echoed in replies; -1 when absent
    std::variant<std::monostate, StartRun, SetSettings, StopRun, StatusRequest> body;
    ProtocolError error;  // set when the message is invalid

    bool ok() const { return !error.isError(); }
};

ControllerMessage parseControllerMessage(const QByteArray& text);

// The transports this protocol version knows by name.
const QStringList& knownTransports();

}  // namespace smclab::protocol
