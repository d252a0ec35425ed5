#include "runner_lock.h"

#include <QLockFile>

#include "smclab/db/result_store.h"

namespace smclab::orchestrator {

QString runnerLockPath(const QString& databasePath, qint64 campaignId) {
    return QStringLiteral("%1.campaign-%2.lock").arg(databasePath).arg(campaignId);
}

QString runnerLockName(const db::ResultStore& store, qint64 campaignId) {
    return store.hasRunnerLocks() ? QStringLiteral("an advisory lock in %1").arg(store.path())
                                  : runnerLockPath(store.path(), campaignId);
}

namespace {

std::unique_ptr<QLockFile> newLockFile(const QString& databasePath, qint64 campaignId) {
    auto lock = std::make_unique<QLockFile>(runnerLockPath(databasePath, campaignId));
    // Only a dead owner makes a lock stale, never its age: a campaign runs for hours.
    lock->setStaleLockTime(0);
    return lock;
}

class FileRunnerLock : public RunnerLock {
public:
    explicit FileRunnerLock(std::unique_ptr<QLockFile> file) : m_file(std::move(file)) {}

private:
    std::unique_ptr<QLockFile> m_file;
};

class StoreRunnerLock : public RunnerLock {
public:
    StoreRunnerLock(db::ResultStore& store, qint64 campaignId) : m_store(store), m_campaignId(campaignId) {}
    // An error here (the connection is gone) needs nothing: the server
    // released the lock with the connection.
    ~StoreRunnerLock() override { (void)m_store.unlockCampaignRunner(m_campaignId); }
    StoreRunnerLock(const StoreRunnerLock&) = delete;
    StoreRunnerLock& operator=(const StoreRunnerLock&) = delete;

private:
    db::ResultStore& m_store;
    qint64 m_campaignId;
};

}  // namespace

RunnerPresence campaignRunnerPresence(db::ResultStore& store, qint64 campaignId) {
    if (campaignId <= 0) return RunnerPresence::unknown;
    if (store.hasRunnerLocks()) {
        const auto held = store.campaignRunnerHeld(campaignId);
        if (!held) return RunnerPresence::unknown;
        return *held ? RunnerPresence::alive : RunnerPresence::none;
    }
    if (store.path().isEmpty()) return RunnerPresence::unknown;
    auto lock = newLockFile(store.path(), campaignId);
    if (lock->tryLock(0)) {
        lock->unlock();
        return RunnerPresence::none;
    }
    return lock->error() == QLockFile::LockFailedError ? RunnerPresence::alive : RunnerPresence::unknown;
}

std::unique_ptr<RunnerLock> takeRunnerLock(db::ResultStore& store, qint64 campaignId) {
    if (campaignId <= 0) return nullptr;
    if (store.hasRunnerLocks()) {
        const auto taken = store.tryLockCampaignRunner(campaignId);
        if (!taken || !*taken) return nullptr;
        return std::make_unique<StoreRunnerLock>(store, campaignId);
    }
    if (store.path().isEmpty()) return nullptr;
    auto lock = newLockFile(store.path(), campaignId);
    if (!lock->tryLock(0)) return nullptr;
    return std::make_unique<FileRunnerLock>(std::move(lock));
}

}  // namespace smclab::orchestrator
