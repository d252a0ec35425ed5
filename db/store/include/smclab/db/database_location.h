// What `--db` / SMCLAB_DB / the GUI's setting name: an SQLite file path, or
// a PostgreSQL server as postgresql://USER@HOST[:PORT]/DBNAME (postgres://
// too). The password never travels in the URL (command lines are visible to
// every user in ps and stay in shell history): libpq reads it from
// PGPASSWORD or ~/.pgpass (PGPASSFILE), and a URL with one is refused.
#pragma once

#include <smcr/result.h>

#include <QString>

namespace smclab::db {

enum class StoreBackend { sqlite = 0, postgresql };

struct DatabaseLocation {
    StoreBackend backend = StoreBackend::sqlite;
    QString path;  // sqlite: the file
    // postgresql:
    QString user;
    QString host;  // a name or an address
    int port = 5432;
    QString database;

    // The file path, or the URL without secrets: what error messages name.
    QString display() const;
};

inline constexpr int kPostgresDefaultPort = 5432;

// True when `text` is a postgresql:// or postgres:// URL (it may still be malformed).
bool isPostgresUrl(const QString& text);

// Errc::invalidArgument with a sentence naming what is wrong (a password in
// the URL, no user, no database, a bad port, query options).
smcr::Result<DatabaseLocation> parseDatabaseLocation(const QString& text);

}  // namespace smclab::db
