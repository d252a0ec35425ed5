// Reads the fields of one JSON object with every check the protocol promises:
// type, integer-ness, range, string length, pattern, enum membership, and no
// unknown keys. The first failure is kept, naming the field by its dotted
// path ("params.msg_size"), so a validator can read a whole message
// straight-line and test ok() once at the end.
#pragma once

#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QString>
#include <QStringList>

#include "protocol/protocol_error.h"

namespace smclab::protocol {

class FieldReader {
public:
    explicit FieldReader(const QJsonObject& object, QString prefix = {});

    QString requireString(const QString& key, int maxChars, const QRegularExpression* pattern = nullptr);
    QString optionalString(const QString& key, int maxChars, const QString& fallback,
                           const QRegularExpression* pattern = nullptr);
    qint64 requireInt(const QString& key, qint64 min, qint64 max);
    qint64 optionalInt(const QString& key, qint64 min, qint64 max, qint64 fallback);
    bool optionalBool(const QString& key, bool fallback);
    // The value must be one of `allowed`; otherwise the error has `codeIfUnknown`.
    QString requireEnum(const QString& key, const QStringList& allowed, const char* codeIfUnknown = errc::kBadField);
    QJsonObject optionalObject(const QString& key);
    bool has(const QString& key) const { return m_object.contains(key); }
    // Marks a key as known without reading it (e.g. "type", "id").
    void accept(const QString& key) { m_seen.insert(key); }

    // Fails on the first key that no read or accept() mentioned.
    bool finish();

    bool ok() const { return !m_error.isError(); }
    const ProtocolError& error() const { return m_error; }
    void fail(const char* code, const QString& key, const QString& message);
    void failWith(const ProtocolError& error) {
        if (ok()) m_error = error;
    }
    QString path(const QString& key) const { return m_prefix.isEmpty() ? key : m_prefix + '.' + key; }

private:
    bool present(const QString& key);

    const QJsonObject m_object;
    const QString m_prefix;
    QSet<QString> m_seen;
    ProtocolError m_error;
};

// Checks a free-form map (workload params, transport settings): at most
// `maxKeys` keys matching kKeyPattern, scalar values (bool, finite number,
// string up to 1024 chars) or arrays of up to 256 scalars.
ProtocolError checkScalarMap(const QJsonObject& object, const QString& path, int maxKeys);

// Identifier rule for keys of params and settings: lower case, digits, '_' and '.'.
const QRegularExpression& keyPattern();

}  // namespace smclab::protocol
