// Opening the store's Qt SQL connection for each backend, up to the point
// where migrations can run: the driver, the connection's session settings,
// and (SQLite) the journal mode. Private to db/.
#pragma once

#include <smcr/result.h>

#include <QString>

#include "smclab/db/database_location.h"
#include "smclab/db/result_store.h"

namespace smclab::db::connection {

// Adds and opens the connection `connectionName` for `location`. SQLite: a
// newer file is refused here, before the journal mode changes anything.
smcr::Status open(const DatabaseLocation& location, const QString& connectionName, const OpenOptions& options);

}  // namespace smclab::db::connection
