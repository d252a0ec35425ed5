// Shared by the commands that only read the results store (list, show,
// report, compare): opening the database named by --db / $SMCLAB_DB / the
// default path with clear errors, and parsing campaign ids.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <QString>

#include "smclab/db/result_store.h"

namespace smclab::cli {

// Opens an existing database for `command` ("smclab list"). Prints why to
// stderr and returns null when the file is missing (unless `mayBeMissing`,
// which returns null without a message), locked, newer, or broken.
std::unique_ptr<db::ResultStore> openExistingStore(const QString& dbPath, const char* command,
                                                   bool mayBeMissing = false);

// A campaign id: a positive integer, optionally written "#3".
std::optional<qint64> parseCampaignId(const std::string& text);

// Prints "<command>: <message>" to stderr and returns the exit code for the
// error: 1 for a missing campaign or a locked/broken database, 2 for bad
// arguments (Errc::invalidArgument).
int reportError(const char* command, const smcr::Error& error);

// Writes `text` to `path` atomically (QSaveFile), or to stdout when `path`
// is empty. Prints the failure and returns false on error.
bool writeOutput(const char* command, const QString& path, const QString& text);

}  // namespace smclab::cli
