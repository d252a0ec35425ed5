// The schema and its forward-only migrations. Private to db/.
#pragma once

#include <smcr/result.h>

#include <QSqlDatabase>
#include <QString>

namespace smclab::db::schema {

// Schema version stored in the file: 0 for an empty file. Fails with
// Errc::notSupported when the file holds tables but no smclab meta table.
smcr::Result<int> readVersion(const QSqlDatabase& db, const QString& path);

// Brings the file to kSchemaVersion, one transaction per step (each step
// re-reads the version under the write lock, so two processes opening the
// same new file at once migrate it once). A newer file is refused with
// Errc::notSupported before anything is written. Returns the final version.
smcr::Result<int> migrate(const QSqlDatabase& db, const QString& path);

}  // namespace smclab::db::schema
