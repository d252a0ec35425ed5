// Where the results database lives.
//
//   1. an explicit path (the CLI's --db PATH, the GUI's settings), else
//   2. the SMCLAB_DB environment variable, else
//   3. QStandardPaths::AppDataLocation + "/smclab.db", with the application
//      name "smclab": ~/.local/share/smclab/smclab.db on Linux.
//
// One SQLite file (plus its -wal and -shm files while open), or a
// postgresql://USER@HOST[:PORT]/DBNAME URL in any of the three places
// (database_location.h).
#pragma once

#include <QString>

namespace smclab::db {

inline constexpr const char* kDatabaseEnv = "SMCLAB_DB";
inline constexpr const char* kDatabaseFileName = "smclab.db";

QString defaultDatabasePath();
QString resolveDatabasePath(const QString& explicitPath = QString());

}  // namespace smclab::db
