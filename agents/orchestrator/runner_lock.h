// Who is running a campaign. A stored status of "running" only says that a
// runner once started; a reader asks here whether one still does, so a
// campaign whose runner was killed shows as interrupted (resumable) rather
// than running, and a second runner refuses a campaign a live one has.
//
// SQLite: the runner holds a lock file beside the database file (QLockFile:
// it records the process id, and a lock whose process is gone counts as
// stale). PostgreSQL, shared by controllers on several machines where no
// file is shared: the store's advisory lock on the runner's connection
// (ResultStore::tryLockCampaignRunner), which the server frees when that
// connection ends, so a killed runner or a lost network frees it too.
#pragma once

#include <memory>

#include <QString>

namespace smclab::db {
class ResultStore;
}

namespace smclab::orchestrator {

// "<database file>.campaign-<id>.lock" (SQLite stores).
QString runnerLockPath(const QString& databasePath, qint64 campaignId);
// Where the lock is, for messages: the lock file, or "an advisory lock in <url>".
QString runnerLockName(const db::ResultStore& store, qint64 campaignId);

enum class RunnerPresence { invalid = 0, none, alive, unknown };
// unknown: the lock cannot be examined (no folder, no permission, the
// server's error), so the caller should not claim either way.
RunnerPresence campaignRunnerPresence(db::ResultStore& store, qint64 campaignId);

// Held by a runner for as long as it runs a campaign; released when destroyed.
class RunnerLock {
public:
    virtual ~RunnerLock() = default;
};

// Null when the lock cannot be taken (another live runner has it, the folder
// is not writable, the server refused). `store` must outlive the lock.
std::unique_ptr<RunnerLock> takeRunnerLock(db::ResultStore& store, qint64 campaignId);

}  // namespace smclab::orchestrator
