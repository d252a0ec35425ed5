// Who is running a campaign: the runner holds a lock file beside the results
// database while it has a campaign (QLockFile: it records the process id, and
// a lock whose process is gone counts as stale). A stored status of
// "running" only says that a runner once started; a reader asks here whether
// one still does, so a campaign whose runner was killed shows as
// interrupted (resumable) rather than running.
#pragma once

#include <memory>

#include <QString>

class QLockFile;

namespace smclab::orchestrator {

// "<database file>.campaign-<id>.lock"
QString runnerLockPath(const QString& databasePath, qint64 campaignId);

enum class RunnerPresence { invalid = 0, none, alive, unknown };
// unknown: the lock cannot be examined (no folder, no permission), so the
// caller should not claim either way.
RunnerPresence campaignRunnerPresence(const QString& databasePath, qint64 campaignId);

// Held by a runner for as long as it runs `campaignId`; null when the lock
// cannot be taken (another live runner has it, or the folder is not writable).
std::unique_ptr<QLockFile> takeRunnerLock(const QString& databasePath, qint64 campaignId);

}  // namespace smclab::orchestrator
