#include "dialect.h"

#include <QRegularExpression>

namespace smclab::db::dialect {

StoreBackend backendOf(const QSqlDatabase& db) {
    return db.driverName() == QLatin1String("QPSQL") ? StoreBackend::postgresql : StoreBackend::sqlite;
}

QString schemaStatement(const QSqlDatabase& db, const QString& sqliteStatement) {
    if (backendOf(db) == StoreBackend::sqlite) return sqliteStatement;
    QString out = sqliteStatement;
    out.replace(QLatin1String("id INTEGER PRIMARY KEY"), QLatin1String("id BIGSERIAL PRIMARY KEY"));
    static const QRegularExpression integer(QStringLiteral("\\bINTEGER\\b"));
    static const QRegularExpression real(QStringLiteral("\\bREAL\\b"));
    static const QRegularExpression blob(QStringLiteral("\\bBLOB\\b"));
    out.replace(integer, QStringLiteral("BIGINT"));
    out.replace(real, QStringLiteral("DOUBLE PRECISION"));
    out.replace(blob, QStringLiteral("BYTEA"));
    out.remove(QLatin1String(" WITHOUT ROWID"));
    // Text compares and sorts byte-wise, as in SQLite, whatever the
    // server's locale: reports list metrics, settings and columns in the
    // same order from either store.
    static const QRegularExpression text(QStringLiteral("\\bTEXT\\b"));
    out.replace(text, QStringLiteral("TEXT COLLATE \"C\""));
    return out;
}

QString beginWrite(const QSqlDatabase& db) {
    return backendOf(db) == StoreBackend::sqlite ? QStringLiteral("BEGIN IMMEDIATE") : QStringLiteral("BEGIN");
}

QString migrationLock(const QSqlDatabase& db) {
    // The key is arbitrary but fixed: "smcl" in ASCII.
    return backendOf(db) == StoreBackend::sqlite ? QString()
                                                 : QStringLiteral("SELECT pg_advisory_xact_lock(1936548716)");
}

namespace {
// The lock's first key, "smcr" in ASCII (the migration lock is "smcl"); the
// second is the campaign id.
constexpr const char* kRunnerLockClass = "1936548722";
}  // namespace

QString runnerTryLock(const QSqlDatabase& db) {
    return backendOf(db) == StoreBackend::sqlite ? QString()
                                                 : QStringLiteral("SELECT pg_try_advisory_lock(%1, CAST(? AS integer))")
                                                       .arg(QLatin1String(kRunnerLockClass));
}

QString runnerUnlock(const QSqlDatabase& db) {
    return backendOf(db) == StoreBackend::sqlite ? QString()
                                                 : QStringLiteral("SELECT pg_advisory_unlock(%1, CAST(? AS integer))")
                                                       .arg(QLatin1String(kRunnerLockClass));
}

QString runnerHolders(const QSqlDatabase& db) {
    // The two-key form shows in pg_locks as classid, objid and objsubid 2.
    return backendOf(db) == StoreBackend::sqlite
               ? QString()
               : QStringLiteral(
                     "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 "
                     "AND classid = %1 AND objid = CAST(? AS integer) "
                     "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")
                     .arg(QLatin1String(kRunnerLockClass));
}

QString tableExistsQuery(const QSqlDatabase& db) {
    return backendOf(db) == StoreBackend::sqlite
               ? QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?")
               : QStringLiteral(
                     "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() "
                     "AND table_name = ?");
}

QString userTablesQuery(const QSqlDatabase& db) {
    return backendOf(db) == StoreBackend::sqlite
               ? QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
               : QStringLiteral("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()");
}

QString insertionOrder(const QSqlDatabase& db) {
    // ctid is a row's physical place: insertion order for rows that are only
    // ever inserted and deleted together (setting_changes of one run).
    return backendOf(db) == StoreBackend::sqlite ? QStringLiteral("rowid") : QStringLiteral("ctid");
}

bool isBusy(const QSqlError& error) {
    const QString native = error.nativeErrorCode();
    // SQLITE_BUSY = 5, SQLITE_LOCKED = 6 (sqlite3.h result codes).
    if (native == QLatin1String("5") || native == QLatin1String("6")) return true;
    if (native == QLatin1String("55P03") || native == QLatin1String("40P01") || native == QLatin1String("40001")) {
        return true;
    }
    return native.isEmpty() && error.text().contains(QLatin1String("database is locked"), Qt::CaseInsensitive);
}

bool isConnectionLost(const QSqlError& error) {
    const QString native = error.nativeErrorCode();
    if (error.type() == QSqlError::ConnectionError || native.startsWith(QLatin1String("08")) ||
        native.startsWith(QLatin1String("57P0"))) {
        return true;
    }
    // A connection that died between statements reports no SQLSTATE, only
    // libpq's text (fe-misc.c / fe-exec.c wording).
    const QString text = error.databaseText() + QLatin1Char(' ') + error.driverText();
    for (const char* phrase : {"server closed the connection unexpectedly", "no connection to the server",
                               "connection to server was lost", "terminating connection"}) {
        if (text.contains(QLatin1String(phrase), Qt::CaseInsensitive)) return true;
    }
    return false;
}

}  // namespace smclab::db::dialect
