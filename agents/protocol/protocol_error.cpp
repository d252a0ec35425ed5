#include "protocol/protocol_error.h"

namespace smclab::protocol {

QJsonObject ProtocolError::toJson() const {
    QJsonObject object{{"type", "error"}, {"code", code}, {"message", message}};
    if (!field.isEmpty()) object.insert("field", field);
    return object;
}

ProtocolError ProtocolError::fromJson(const QJsonObject& object) {
    return {object.value("code").toString(), object.value("field").toString(), object.value("message").toString()};
}

ProtocolError makeError(const char* code, const QString& field, const QString& message) {
    return {QString::fromLatin1(code), field, message};
}

}  // namespace smclab::protocol
