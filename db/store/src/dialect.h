// Everything the store says differently to SQLite and to PostgreSQL, in one
// place. The rest of db/ writes one SQL that both accept (INSERT ...
// RETURNING id, ON CONFLICT ... DO UPDATE/NOTHING, '?' placeholders) and asks
// here for the rest: the schema's types, how a write transaction begins,
// how migrations are serialised, where the catalogue is, insertion order,
// and which errors mean "busy". Private to db/.
#pragma once

#include <QSqlDatabase>
#include <QSqlError>
#include <QString>

#include "smclab/db/database_location.h"

namespace smclab::db::dialect {

StoreBackend backendOf(const QSqlDatabase& db);

// A schema statement written for SQLite (the released v1/v2 text) as this
// backend takes it. PostgreSQL: INTEGER PRIMARY KEY ids become BIGSERIAL (a
// sequence: two writers never get one id), INTEGER BIGINT (engine counters
// are 64-bit), REAL DOUBLE PRECISION, BLOB BYTEA, TEXT with the byte-wise
// "C" collation (the order SQLite gives), no WITHOUT ROWID.
QString schemaStatement(const QSqlDatabase& db, const QString& sqliteStatement);

// Starts a write transaction. SQLite: BEGIN IMMEDIATE (takes the write lock
// up front, so two writers queue on the busy timeout instead of failing when
// a read transaction tries to upgrade). PostgreSQL: BEGIN (row locks and
// MVCC; writers of different campaigns never wait for each other).
QString beginWrite(const QSqlDatabase& db);

// Run first in a migration's transaction so two processes opening one new
// database migrate it once. SQLite: nothing (BEGIN IMMEDIATE serialises);
// PostgreSQL: a transaction-scoped advisory lock.
QString migrationLock(const QSqlDatabase& db);

// The campaign-runner lock (ResultStore::tryLockCampaignRunner): a
// session-level advisory lock on (kRunnerLockClass, campaign id), which the
// server releases when the holder's connection ends, however it ends.
// Empty for SQLite (the orchestrator keeps a lock file beside the file).
// Each takes the campaign id as its one '?'.
QString runnerTryLock(const QSqlDatabase& db);
QString runnerUnlock(const QSqlDatabase& db);
// count(*) of granted holders of the lock, in any session of this database.
QString runnerHolders(const QSqlDatabase& db);

// count(*) of the table named ? in the store's namespace / of all user tables.
QString tableExistsQuery(const QSqlDatabase& db);
QString userTablesQuery(const QSqlDatabase& db);

// A column that orders rows of an insert-only table as they were inserted.
QString insertionOrder(const QSqlDatabase& db);

// Another writer held a lock past the timeout (SQLITE_BUSY/LOCKED; PostgreSQL
// lock_not_available, deadlock, serialization failure). The two drivers'
// native codes never collide (SQLite's are numbers, PostgreSQL's SQLSTATEs
// five characters), so the error alone tells.
bool isBusy(const QSqlError& error);
// The server cannot be reached or went away (a connection error, SQLSTATE
// class 08, or an administrator shutdown 57P0x). Never true for SQLite.
bool isConnectionLost(const QSqlError& error);

}  // namespace smclab::db::dialect
