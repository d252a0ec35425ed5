// The protocol's one error shape: a stable machine-readable code, the field
// at fault (a dotted path such as "params.msg_size", empty when the message as
// a whole is at fault) and a sentence for people.
#pragma once

#include <QJsonObject>
#include <QMetaType>
#include <QString>

namespace smclab::protocol {

// Error codes (PROTOCOL.md, "Errors"). Strings on the wire, so they are
// constants rather than an enum that would need a second name table.
namespace errc {
inline constexpr const char* kBadJson = "bad_json";            // not JSON, or not an object
inline constexpr const char* kBadMessage = "bad_message";      // no/unknown "type"
inline constexpr const char* kBadField = "bad_field";          // wrong type, range, size or enum
inline constexpr const char* kMissingField = "missing_field";  // a required field is absent
inline constexpr const char* kUnknownWorkload = "unknown_workload";
inline constexpr const char* kUnknownTransport = "unknown_transport";
inline constexpr const char* kTransportUnavailable = "transport_unavailable";
inline constexpr const char* kUnknownSetting = "unknown_setting";
inline constexpr const char* kUnknownRun = "unknown_run";
inline constexpr const char* kDuplicateRun = "duplicate_run";
inline constexpr const char* kTooManyRuns = "too_many_runs";
inline constexpr const char* kPeerNotAllowed = "peer_not_allowed";
inline constexpr const char* kRunFailed = "run_failed";
inline constexpr const char* kUnauthorized = "unauthorized";
inline constexpr const char* kShuttingDown = "shutting_down";
inline constexpr const char* kInternal = "internal";
// Client side only: the connection ended before the agent replied.
inline constexpr const char* kDisconnected = "disconnected";
}  // namespace errc

struct ProtocolError {
    QString code;
    QString field;  // dotted path, empty when not about one field
    QString message;

    bool isError() const { return !code.isEmpty(); }
    // The wire form: {"type":"error","code":...,"field":...,"message":...}.
    QJsonObject toJson() const;
    static ProtocolError fromJson(const QJsonObject& object);
};

ProtocolError makeError(const char* code, const QString& field, const QString& message);

}  // namespace smclab::protocol

Q_DECLARE_METATYPE(smclab::protocol::ProtocolError)
