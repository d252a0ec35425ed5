#include "token_auth.h"

#include <QFile>
#include <QFileDevice>
#include <QtGlobal>

namespace smclab::daemon {

std::optional<QByteArray> loadToken(const QString& path, QString* why) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *why = QString("cannot read token file %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    const QByteArray token = file.read(4096).trimmed();
    if (token.size() < 8) {
        *why = QString("token file %1 holds %2 bytes; a token needs at least 8").arg(path).arg(token.size());
        return std::nullopt;
    }
    if (token.contains('\n') || token.contains('\r')) {
        *why = QString("token file %1 must hold one line").arg(path);
        return std::nullopt;
    }
    const auto permissions = file.permissions();
    if (permissions & (QFileDevice::ReadGroup | QFileDevice::ReadOther)) {
        qWarning("token file %s is readable by group or others; chmod 600 it", qPrintable(path));
    }
    return token;
}

bool tokensEqual(const QByteArray& expected, const QByteArray& offered) {
    // Accumulate differences without branching on the data.
    unsigned difference = static_cast<unsigned>(expected.size() ^ offered.size());
    for (qsizetype i = 0; i < expected.size(); ++i) {
        const char other = i < offered.size() ? offered.at(i) : static_cast<char>(~expected.at(i));
        difference |= static_cast<unsigned char>(expected.at(i) ^ other);
    }
    return difference == 0 && !expected.isEmpty();
}

QByteArray bearerToken(const QByteArray& headerValue) {
    const QByteArray value = headerValue.trimmed();
    constexpr char kScheme[] = "bearer ";
    if (value.size() <= 7 || value.left(7).toLower() != kScheme) return {};
    return value.mid(7).trimmed();
}

}  // namespace smclab::daemon
