#include "smclab/db/database_location.h"

#include <QUrl>

namespace smclab::db {

namespace {

smcr::Unexpected bad(const QString& text, const QString& why) {
    return smcr::fail(smcr::Errc::invalidArgument,
                      QStringLiteral("database URL %1: %2 (expected postgresql://USER@HOST[:PORT]/DBNAME)")
                          .arg(text, why)
                          .toStdString());
}

}  // namespace

QString DatabaseLocation::display() const {
    if (backend == StoreBackend::sqlite) return path;
    const QString shownHost = host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host;
    return QStringLiteral("postgresql://%1@%2:%3/%4").arg(user, shownHost).arg(port).arg(database);
}

bool isPostgresUrl(const QString& text) {
    return text.startsWith(QLatin1String("postgresql://")) || text.startsWith(QLatin1String("postgres://"));
}

smcr::Result<DatabaseLocation> parseDatabaseLocation(const QString& text) {
    DatabaseLocation location;
    if (text.isEmpty()) return smcr::fail(smcr::Errc::invalidArgument, "empty database path");
    if (!isPostgresUrl(text)) {
        location.path = text;
        return location;
    }
    const QUrl url(text, QUrl::StrictMode);
    // The message never repeats the text once it may hold a password.
    if (!url.password().isEmpty() || text.section(QLatin1Char('@'), 0, 0).count(QLatin1Char(':')) > 1) {
        return smcr::fail(smcr::Errc::invalidArgument,
                          "a database URL must not carry a password (command lines are visible to other users); "
                          "put it in ~/.pgpass or PGPASSWORD");
    }
    if (!url.isValid()) return bad(text, url.errorString());
    if (url.hasQuery() || url.hasFragment())
        return bad(text, QStringLiteral("options after '?' or '#' are not supported"));
    location.backend = StoreBackend::postgresql;
    location.user = url.userName();
    location.host = url.host();
    location.port = url.port(kPostgresDefaultPort);
    location.database = url.path().mid(1);
    if (location.user.isEmpty()) return bad(text, QStringLiteral("no USER@"));
    if (location.host.isEmpty()) return bad(text, QStringLiteral("no HOST"));
    if (location.port <= 0 || location.port > 65535) return bad(text, QStringLiteral("bad port"));
    if (location.database.isEmpty() || location.database.contains(QLatin1Char('/'))) {
        return bad(text, QStringLiteral("no /DBNAME"));
    }
    return location;
}

}  // namespace smclab::db
