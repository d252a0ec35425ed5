// Bearer-token authentication of controllers (PROTOCOL.md, "Transport and
// authentication"): the token is read once from --token-file and compared in
// constant time, so response timing does not leak how much of a guess was right.
#pragma once

#include <optional>

#include <QByteArray>
#include <QString>

namespace smclab::daemon {

// Reads and trims the token. Fails (with *why) on an unreadable file or a
// token shorter than 8 bytes. Warns on stderr if the file is readable by
// group or others.
std::optional<QByteArray> loadToken(const QString& path, QString* why);

// Constant time in the length of `expected`: every byte is compared whatever
// the first mismatch, and a length mismatch still walks `expected`.
bool tokensEqual(const QByteArray& expected, const QByteArray& offered);

// The TOKEN of an "Authorization: Bearer TOKEN" header value, or empty.
QByteArray bearerToken(const QByteArray& headerValue);

}  // namespace smclab::daemon
