#include "sql.h"

#include <QTimeZone>

#include "dialect.h"

namespace smclab::db::sql {

smcr::Error toError(const QSqlError& error, const QString& path, const QString& what) {
    const QString text = error.text();
    if (dialect::isBusy(error)) {
        return smcr::makeError(smcr::Errc::timedOut,
                               QStringLiteral("database is locked: %1 (another smclab process holds its write lock; "
                                              "retry when it finishes)")
                                   .arg(path)
                                   .toStdString());
    }
    if (dialect::isConnectionLost(error)) {
        return smcr::makeError(smcr::Errc::connectionReset,
                               QStringLiteral("lost the connection to the database server %1 (%2): %3")
                                   .arg(path, what, text.trimmed())
                                   .toStdString());
    }
    return smcr::makeError(smcr::Errc::systemError,
                           QStringLiteral("%1: %2: %3").arg(path, what, text.trimmed()).toStdString());
}

QVariant bindable(const QVariant& value) {
    if (value.typeId() == QMetaType::QString && value.toString().isNull()) return QString(QLatin1String(""));
    return value;
}

smcr::Result<QSqlQuery> exec(const QSqlDatabase& db, const QString& path, const QString& statement,
                             const QVariantList& values) {
    QSqlQuery query(db);
    query.setForwardOnly(true);
    // Without values, run the text as it is: PostgreSQL cannot PREPARE DDL
    // or utility statements, and QPSQL prepares whatever prepare() gets.
    if (values.isEmpty()) {
        if (!query.exec(statement)) {
            return smcr::fail(toError(query.lastError(), path, statement.section(QLatin1Char(' '), 0, 2)));
        }
        return query;
    }
    if (!query.prepare(statement)) return smcr::fail(toError(query.lastError(), path, QStringLiteral("prepare")));
    for (const QVariant& value : values) query.addBindValue(bindable(value));
    if (!query.exec()) return smcr::fail(toError(query.lastError(), path, statement.section(QLatin1Char(' '), 0, 2)));
    return query;
}

// QSqlDatabase is a shared handle without a move constructor: copying it is the only way.
WriteTransaction::WriteTransaction(const QSqlDatabase& db, QString path) : m_db(db), m_path(std::move(path)) {}

WriteTransaction::~WriteTransaction() {
    if (m_active) {
        QSqlQuery rollback(m_db);
        rollback.exec(QStringLiteral("ROLLBACK"));
    }
}

smcr::Status WriteTransaction::begin() {
    QSqlQuery query(m_db);
    if (!query.exec(dialect::beginWrite(m_db))) {
        return smcr::fail(toError(query.lastError(), m_path, QStringLiteral("begin")));
    }
    m_active = true;
    return {};
}

smcr::Status WriteTransaction::commit() {
    QSqlQuery query(m_db);
    if (!query.exec(QStringLiteral("COMMIT"))) {
        return smcr::fail(toError(query.lastError(), m_path, QStringLiteral("commit")));
    }
    m_active = false;
    return {};
}

QVariant timestamp(const QDateTime& time) {
    if (!time.isValid()) return QVariant();
    return time.toUTC().toString(Qt::ISODateWithMs);
}

QDateTime parseTimestamp(const QVariant& value) {
    if (value.isNull()) return QDateTime();
    QDateTime time = QDateTime::fromString(value.toString(), Qt::ISODateWithMs);
    if (time.isValid()) time = time.toUTC();
    return time;
}

QVariant optionalId(const std::optional<qint64>& id) {
    return id ? QVariant(*id) : QVariant();
}

std::optional<qint64> toOptionalId(const QVariant& value) {
    if (value.isNull()) return std::nullopt;
    return value.toLongLong();
}

}  // namespace smclab::db::sql
