// Small helpers over Qt SQL shared by the store's source files: running a
// statement with bound values, mapping QSqlError to smcr::Error, a write
// transaction guard, timestamps. Private to db/.
#pragma once

#include <smcr/result.h>

#include <QDateTime>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QVariant>
#include <QVariantList>

namespace smclab::db::sql {

// "database is locked" (SQLITE_BUSY / SQLITE_LOCKED, PostgreSQL lock
// timeouts) becomes Errc::timedOut with a message naming the database; a
// lost server connection Errc::connectionReset; everything else
// Errc::systemError.
smcr::Error toError(const QSqlError& error, const QString& path, const QString& what);

// A bound value; a null QString becomes '' (columns are NOT NULL text),
// NULL is bound with an invalid QVariant().
QVariant bindable(const QVariant& value);

// Prepares and runs `statement` with positional '?' values (runs it
// unprepared when there are none).
smcr::Result<QSqlQuery> exec(const QSqlDatabase& db, const QString& path, const QString& statement,
                             const QVariantList& values = {});

// BEGIN (dialect::beginWrite) ... COMMIT; rolls back when destroyed uncommitted.
class WriteTransaction {
public:
    WriteTransaction(const QSqlDatabase& db, QString path);
    ~WriteTransaction();
    WriteTransaction(const WriteTransaction&) = delete;
    WriteTransaction& operator=(const WriteTransaction&) = delete;

    smcr::Status begin();
    smcr::Status commit();

private:
    QSqlDatabase m_db;
    QString m_path;
    bool m_active = false;
};

QVariant timestamp(const QDateTime& time);  // ISO 8601 UTC text, NULL when invalid
QDateTime parseTimestamp(const QVariant& value);
QVariant optionalId(const std::optional<qint64>& id);
std::optional<qint64> toOptionalId(const QVariant& value);

}  // namespace smclab::db::sql
