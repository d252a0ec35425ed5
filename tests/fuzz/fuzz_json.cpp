// libFuzzer target for the agent's control-message parser (agents/protocol):
// the strict controller -> agent validator that every WebSocket text frame
// goes through, and the lenient readers a controller applies to agent ->
// controller messages. Properties:
// - a refused message carries a protocol error code and a sentence;
// - an accepted message re-encodes (toJson) to a message that is accepted
//   again and encodes to the same JSON (no field lost or altered);
// - the lenient readers never crash on any JSON object, and what the reader
//   of the object's type read encodes again.
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
    if (message.requestId >= 0) json.insert("id", static_cast<double>(message.requestId));
    const QByteArray encoded = QJsonDocument(json).toJson(QJsonDocument::Compact);
    const ControllerMessage again = parseControllerMessage(encoded);
    if (!again.ok() || again.requestId != message.requestId || again.body.index() != message.body.index()) std::abort();
    if (bodyJson(again) != bodyJson(message)) std::abort();
}

// Every lenient reader reads every object (a controller may apply one to a
// reply of any type, e.g. ProtocolError in orchestrator/cell_runner.cpp), but
// only the reader of the message's own "type" re-encodes what it read, as
// AgentClient::onTextMessage dispatches. Re-encoding the five other readers'
// defaults was constant work (Capabilities::toJson alone was a third of every
// execution under ASan) and reached no input-dependent code.
template <typename Message>
void readAs(const QJsonObject& object, bool encode) {
    const Message message = Message::fromJson(object);
    if (encode) (void)message.toJson();
}

void readLeniently(const QJsonObject& object) {
    const QString messageType = object.value("type").toString();
    readAs<Hello>(object, messageType == type::kHello);
    readAs<RunReady>(object, messageType == type::kRunReady);
    readAs<Samples>(object, messageType == type::kSamples);
    readAs<SettingsApplied>(object, messageType == type::kSettingsApplied);
    readAs<RunResult>(object, messageType == type::kRunResult);
    readAs<ProtocolError>(object, messageType == type::kError);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray raw(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    // The agent receives text frames as QString and parses their UTF-8 form
    // (agents/daemon/session.cpp); feed both the raw bytes and that form.
    const QByteArray text = QString::fromUtf8(raw).toUtf8();
    for (const QByteArray* input : {&raw, &text}) {
        if (input == &text && text == raw) break;
        const ControllerMessage message = parseControllerMessage(*input);
        if (message.ok()) {
            checkRoundTrip(message);
        } else if (message.error.code.isEmpty() || message.error.message.isEmpty()) {
            std::abort();
        }
    }
    const QJsonDocument document = QJsonDocument::fromJson(raw);
    if (document.isObject()) readLeniently(document.object());
    return 0;
}
