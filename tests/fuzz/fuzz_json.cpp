// libFuzzer target for the agent's control-message parser (agents/protocol):
// the strict controller -> agent validator that every WebSocket text frame
// goes through, and the lenient readers a controller applies to agent ->
// controller messages. Properties:
// - a refused message carries a protocol error code and a sentence;
// - an accepted message re-encodes (toJson) to a message that is accepted
//   again and encodes to the same JSON (no field lost or altered);
// - the lenient readers never crash on any JSON object.
#include <cstdint>
#include <cstdlib>
#include <variant>

#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include "protocol/hello.h"
#include "protocol/messages.h"
#include "protocol/protocol_error.h"
#include "protocol/validator.h"

namespace {

using namespace smclab::protocol;

// The JSON of an accepted message body, or an empty object for `status`.
QJsonObject bodyJson(const ControllerMessage& message) {
    return std::visit(
        [](const auto& body) -> QJsonObject {
            using Body = std::decay_t<decltype(body)>;
            if constexpr (std::is_same_v<Body, std::monostate>) {
                std::abort();  // an accepted message always has a body
            } else if constexpr (std::is_same_v<Body, StatusRequest>) {
                return QJsonObject{{"type", type::kStatus}};
            } else {
                return body.toJson();
            }
        },
        message.body);
}

void checkRoundTrip(const ControllerMessage& message) {
    QJsonObject json = bodyJson(message);
    if (message.requestId >= 0)
        json.insert("id", static_cast<double>(message.requestId));
    const QByteArray encoded = QJsonDocument(json).toJson(QJsonDocument::Compact);
    const ControllerMessage again = parseControllerMessage(encoded);
    if (!again.ok() || again.requestId != message.requestId || again.body.index() != message.body.index())
        std::abort();
    if (bodyJson(again) != bodyJson(message))
        std::abort();
}

void readLeniently(const QJsonObject& object) {
    (void)Hello::fromJson(object).toJson();
    (void)RunReady::fromJson(object).toJson();
    (void)Samples::fromJson(object).toJson();
    (void)SettingsApplied::fromJson(object).toJson();
    (void)RunResult::fromJson(object).toJson();
    (void)ProtocolError::fromJson(object).toJson();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray raw(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    // The agent receives text frames as QString and parses their UTF-8 form
    // (agents/daemon/session.cpp); feed both the raw bytes and that form.
    const QByteArray text = QString::fromUtf8(raw).toUtf8();
    for (const QByteArray* input : {&raw, &text}) {
        if (input == &text && text == raw)
            break;
        const ControllerMessage message = parseControllerMessage(*input);
        if (message.ok()) {
            checkRoundTrip(message);
        } else if (message.error.code.isEmpty() || message.error.message.isEmpty()) {
            std::abort();
        }
    }
    const QJsonDocument document = QJsonDocument::fromJson(raw);
    if (document.isObject())
        readLeniently(document.object());
    return 0;
}
