#include "runner_lock.h"

#include <QLockFile>

namespace smclab::orchestrator {

QString runnerLockPath(const QString& databasePath, qint64 campaignId) {
    return QStringLiteral("%1.campaign-%2.lock").arg(databasePath).arg(campaignId);
}

namespace {
std::unique_ptr<QLockFile> newLock(const QString& databasePath, qint64 campaignId) {
    auto lock = std::make_unique<QLockFile>(runnerLockPath(databasePath, campaignId));
    // Only a dead owner makes a lock stale, never its age: a campaign runs for hours.
    lock->setStaleLockTime(0);
    return lock;
}
}  // namespace

RunnerPresence campaignRunnerPresence(const QString& databasePath, qint64 campaignId) {
    if (databasePath.isEmpty() || campaignId <= 0)
        return RunnerPresence::unknown;
    auto lock = newLock(databasePath, campaignId);
    if (lock->tryLock(0)) {
        lock->unlock();
        return RunnerPresence::none;
    }
    return lock->error() == QLockFile::LockFailedError ? RunnerPresence::alive : RunnerPresence::unknown;
}

std::unique_ptr<QLockFile> takeRunnerLock(const QString& databasePath, qint64 campaignId) {
    if (databasePath.isEmpty() || campaignId <= 0)
        return nullptr;
    auto lock = newLock(databasePath, campaignId);
    if (!lock->tryLock(0))
        return nullptr;
    return lock;
}

}  // namespace smclab::orchestrator
