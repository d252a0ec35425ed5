#include "store_connection.h"

#include <QDir>
#include <QFileInfo>
#include <QSqlDatabase>

#include "schema.h"
#include "sql.h"

namespace smclab::db::connection {

namespace {

smcr::Status openSqlite(const DatabaseLocation& location, const QString& connectionName, const OpenOptions& options) {
    const QString& path = location.path;
    const QFileInfo info(path);
    if (!QDir().mkpath(info.absolutePath())) {
        return smcr::fail(
            smcr::Errc::systemError,
            QStringLiteral("cannot create folder %1 for the database").arg(info.absolutePath()).toStdString());
    }
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connectionName);
    if (!db.isValid()) {
        return smcr::fail(smcr::Errc::notSupported,
                          "the Qt SQLite driver (QSQLITE) is not available; install libqt6sql6-sqlite");
    }
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(options.busyTimeoutMs));
    if (!db.open()) return smcr::fail(sql::toError(db.lastError(), path, QStringLiteral("open")));

    for (const QString& pragma : {QStringLiteral("PRAGMA foreign_keys = ON"),
                                  QStringLiteral("PRAGMA busy_timeout = %1").arg(options.busyTimeoutMs)}) {
        if (auto r = sql::exec(db, path, pragma); !r) return smcr::fail(r.error());
    }
    // A newer file is refused before anything (even the journal mode) changes.
    auto version = schema::readVersion(db, path);
    if (!version) return smcr::fail(version.error());
    if (*version > kSchemaVersion) {
        auto refused = schema::migrate(db, path);
        return smcr::fail(refused.error());
    }
    // WAL: readers (the GUI) never block the writer; synchronous=FULL makes
    // every committed run survive power loss, not only a process crash.
    auto mode = sql::exec(db, path, QStringLiteral("PRAGMA journal_mode = WAL"));
    if (!mode) return smcr::fail(mode.error());
    if (!mode->next() || mode->value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0) {
        return smcr::fail(smcr::Errc::notSupported,
                          QStringLiteral("%1: cannot switch to WAL journal mode").arg(path).toStdString());
    }
    mode->finish();
    if (auto r = sql::exec(db, path, QStringLiteral("PRAGMA synchronous = FULL")); !r) return smcr::fail(r.error());
    return {};
}

smcr::Status openPostgres(const DatabaseLocation& location, const QString& connectionName, const OpenOptions& options) {
    const QString server = location.display();
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), connectionName);
    if (!db.isValid()) {
        return smcr::fail(smcr::Errc::notSupported,
                          "the Qt PostgreSQL driver (QPSQL) is not available; install libqt6sql6-psql");
    }
    db.setHostName(location.host);
    db.setPort(location.port);
    db.setUserName(location.user);
    db.setDatabaseName(location.database);
    // No password here: libpq takes it from PGPASSWORD or ~/.pgpass itself.
    // connect_timeout bounds an unreachable server (libpq waits forever by default).
    const int connectTimeoutSec = std::max(2, options.busyTimeoutMs / 1000);
    db.setConnectOptions(QStringLiteral("connect_timeout=%1;application_name=smclab").arg(connectTimeoutSec));
    if (!db.open()) {
        return smcr::fail(smcr::Errc::connectionRefused,
                          QStringLiteral("cannot connect to the PostgreSQL server of %1: %2")
                              .arg(server, db.lastError().text().trimmed())
                              .toStdString());
    }
    // A writer waiting on another's row lock gives up like SQLite's busy
    // timeout does; timestamps are stored as text, so the session's time
    // zone does not matter, but UTC keeps server-side now() readable.
    for (const QString& statement :
         {QStringLiteral("SET lock_timeout = %1").arg(options.busyTimeoutMs), QStringLiteral("SET TIME ZONE 'UTC'"),
          QStringLiteral("SET client_min_messages = warning")}) {
        // Utility statements cannot be PREPAREd (QPSQL prepares what sql::exec runs).
        QSqlQuery query(db);
        if (!query.exec(statement)) return smcr::fail(sql::toError(query.lastError(), server, statement));
    }
    return {};
}

}  // namespace

smcr::Status open(const DatabaseLocation& location, const QString& connectionName, const OpenOptions& options) {
    return location.backend == StoreBackend::postgresql ? openPostgres(location, connectionName, options)
                                                        : openSqlite(location, connectionName, options);
}

}  // namespace smclab::db::connection
