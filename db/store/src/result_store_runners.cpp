// ResultStore: the campaign-runner lock of a store that can hold one
// (dialect::runnerTryLock: PostgreSQL's session advisory locks).
#include "dialect.h"
#include "smclab/db/result_store.h"
#include "sql.h"

namespace smclab::db {

namespace {

smcr::Unexpected notSupported(const QString& path) {
    return smcr::fail(
        smcr::Errc::notSupported,
        QStringLiteral("%1: this store keeps no runner locks (use a lock file beside it)").arg(path).toStdString());
}

}  // namespace

bool ResultStore::hasRunnerLocks() const {
    return !dialect::runnerTryLock(database()).isEmpty();
}

smcr::Result<bool> ResultStore::tryLockCampaignRunner(qint64 campaignId) {
    const QString statement = dialect::runnerTryLock(database());
    if (statement.isEmpty()) return notSupported(m_path);
    // Session-level, so the lock outlives the statement (and every
    // transaction after it) until unlockCampaignRunner or the connection ends.
    auto q = sql::exec(database(), m_path, statement, {campaignId});
    if (!q) return smcr::fail(q.error());
    return q->next() && q->value(0).toBool();
}

smcr::Status ResultStore::unlockCampaignRunner(qint64 campaignId) {
    const QString statement = dialect::runnerUnlock(database());
    if (statement.isEmpty()) return notSupported(m_path);
    auto q = sql::exec(database(), m_path, statement, {campaignId});
    if (!q) return smcr::fail(q.error());
    return {};
}

smcr::Result<bool> ResultStore::campaignRunnerHeld(qint64 campaignId) {
    const QString statement = dialect::runnerHolders(database());
    if (statement.isEmpty()) return notSupported(m_path);
    auto q = sql::exec(database(), m_path, statement, {campaignId});
    if (!q) return smcr::fail(q.error());
    return q->next() && q->value(0).toLongLong() > 0;
}

}  // namespace smclab::db
