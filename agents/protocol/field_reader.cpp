#include "protocol/field_reader.h"

#include <cmath>

#include <QJsonArray>
#include <QJsonValue>

namespace smclab::protocol {

namespace {

// JSON numbers are doubles: integers are exact only up to 2^53.
constexpr double kMaxExactInteger = 9007199254740991.0;

QString typeName(const QJsonValue& value) {
    switch (value.type()) {
        case QJsonValue::Null:
            return "null";
        case QJsonValue::Bool:
            return "a boolean";
        case QJsonValue::Double:
            return "a number";
        case QJsonValue::String:
            return "a string";
        case QJsonValue::Array:
            return "an array";
        case QJsonValue::Object:
            return "an object";
        case QJsonValue::Undefined:
            break;
    }
    return "undefined";
}

bool isScalar(const QJsonValue& value, QString* why) {
    if (value.isBool()) return true;
    if (value.isDouble()) {
        if (!std::isfinite(value.toDouble())) {
            *why = "must be a finite number";
            return false;
        }
        return true;
    }
    if (value.isString()) {
        if (value.toString().size() > 1024) {
            *why = "must be at most 1024 characters";
            return false;
        }
        return true;
    }
    *why = "must be a boolean, a number or a string, not " + typeName(value);
    return false;
}

}  // namespace

const QRegularExpression& keyPattern() {
    static const QRegularExpression pattern("^[a-z][a-z0-9_.]{0,63}$");
    return pattern;
}

FieldReader::FieldReader(const QJsonObject& object, QString prefix) : m_object(object), m_prefix(std::move(prefix)) {}

void FieldReader::fail(const char* code, const QString& key, const QString& message) {
    if (m_error.isError()) return;
    m_error = makeError(code, path(key), path(key) + ": " + message);
}

bool FieldReader::present(const QString& key) {
    m_seen.insert(key);
    return m_object.contains(key) && !m_object.value(key).isNull();
}

QString FieldReader::requireString(const QString& key, int maxChars, const QRegularExpression* pattern) {
    if (!present(key)) {
        fail(errc::kMissingField, key, "is required");
        return {};
    }
    return optionalString(key, maxChars, {}, pattern);
}

QString FieldReader::optionalString(const QString& key, int maxChars, const QString& fallback,
                                    const QRegularExpression* pattern) {
    if (!present(key)) return fallback;
    const QJsonValue value = m_object.value(key);
    if (!value.isString()) {
        fail(errc::kBadField, key, "must be a string, not " + typeName(value));
        return fallback;
    }
    const QString text = value.toString();
    if (text.isEmpty()) {
        fail(errc::kBadField, key, "must not be empty");
        return fallback;
    }
    if (text.size() > maxChars) {
        fail(errc::kBadField, key, QString("must be at most %1 characters (got %2)").arg(maxChars).arg(text.size()));
        return fallback;
    }
    if (pattern != nullptr && !pattern->match(text).hasMatch()) {
        fail(errc::kBadField, key, QString("'%1' does not match %2").arg(text, pattern->pattern()));
        return fallback;
    }
    return text;
}

qint64 FieldReader::requireInt(const QString& key, qint64 min, qint64 max) {
    if (!present(key)) {
        fail(errc::kMissingField, key, "is required");
        return min;
    }
    return optionalInt(key, min, max, min);
}

qint64 FieldReader::optionalInt(const QString& key, qint64 min, qint64 max, qint64 fallback) {
    if (!present(key)) return fallback;
    const QJsonValue value = m_object.value(key);
    if (!value.isDouble()) {
        fail(errc::kBadField, key, "must be an integer, not " + typeName(value));
        return fallback;
    }
    const double number = value.toDouble();
    if (!std::isfinite(number) || std::floor(number) != number || std::fabs(number) > kMaxExactInteger) {
        fail(errc::kBadField, key, QString("must be an integer (got %1)").arg(number));
        return fallback;
    }
    const auto integer = static_cast<qint64>(number);
    if (integer < min || integer > max) {
        fail(errc::kBadField, key, QString("%1 is out of range [%2, %3]").arg(integer).arg(min).arg(max));
        return fallback;
    }
    return integer;
}

bool FieldReader::optionalBool(const QString& key, bool fallback) {
    if (!present(key)) return fallback;
    const QJsonValue value = m_object.value(key);
    if (!value.isBool()) {
        fail(errc::kBadField, key, "must be a boolean, not " + typeName(value));
        return fallback;
    }
    return value.toBool();
}

QString FieldReader::requireEnum(const QString& key, const QStringList& allowed, const char* codeIfUnknown) {
    const QString text = requireString(key, 64);
    if (!ok()) return {};
    if (!allowed.contains(text)) {
        fail(codeIfUnknown, key, QString("'%1' is not one of: %2").arg(text, allowed.join(", ")));
        return {};
    }
    return text;
}

QJsonObject FieldReader::optionalObject(const QString& key) {
    if (!present(key)) return {};
    const QJsonValue value = m_object.value(key);
    if (!value.isObject()) {
        fail(errc::kBadField, key, "must be an object, not " + typeName(value));
        return {};
    }
    return value.toObject();
}

bool FieldReader::finish() {
    if (!ok()) return false;
    for (auto it = m_object.begin(); it != m_object.end(); ++it) {
        if (!m_seen.contains(it.key())) {
            fail(errc::kBadField, it.key(), "is not a field of this message");
            return false;
        }
    }
    return true;
}

ProtocolError checkScalarMap(const QJsonObject& object, const QString& path, int maxKeys) {
    if (object.size() > maxKeys) {
        return makeError(errc::kBadField, path,
                         QString("%1: at most %2 entries (got %3)").arg(path).arg(maxKeys).arg(object.size()));
    }
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString field = path + '.' + it.key();
        if (!keyPattern().match(it.key()).hasMatch()) {
            return makeError(errc::kBadField, field, field + ": name does not match " + keyPattern().pattern());
        }
        QString why;
        if (it.value().isArray()) {
            const QJsonArray array = it.value().toArray();
            if (array.size() > 256) return makeError(errc::kBadField, field, field + ": at most 256 elements");
            for (qsizetype i = 0; i < array.size(); ++i) {
                if (!isScalar(array.at(i), &why)) {
                    const QString element = QString("%1[%2]").arg(field).arg(i);
                    return makeError(errc::kBadField, element, element + ": " + why);
                }
            }
        } else if (!isScalar(it.value(), &why)) {
            return makeError(errc::kBadField, field, field + ": " + why);
        }
    }
    return {};
}

}  // namespace smclab::protocol
