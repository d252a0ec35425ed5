// Helpers for the db tests: temporary database files, a raw SQLite
// connection (to build old-schema files by hand and inspect what the store
// wrote), and a run record with data in every table.
#pragma once

#include <atomic>

#include <QDateTime>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QTimeZone>
#include <QVariant>

#include "smclab/db/types.h"

namespace dbtest {

// A raw QSQLITE connection with its own name, closed on destruction.
class RawDb {
public:
    explicit RawDb(const QString& path) {
        static std::atomic<int> counter{0};
        m_name = QStringLiteral("raw-%1").arg(counter.fetch_add(1));
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
        m_ok = db.open();
    }
    ~RawDb() {
        {
            QSqlDatabase db = QSqlDatabase::database(m_name, false);
            db.close();
        }
        QSqlDatabase::removeDatabase(m_name);
    }
    bool ok() const { return m_ok; }
    // Runs a statement; returns false (and logs) on error.
    bool exec(const QString& statement) {
        QSqlQuery q(QSqlDatabase::database(m_name, false));
        if (!q.exec(statement)) {
            qWarning("raw sql failed: %s: %s", qPrintable(statement), qPrintable(q.lastError().text()));
            return false;
        }
        return true;
    }
    // First column of the first row, or an invalid QVariant.
    QVariant scalar(const QString& statement) {
        QSqlQuery q(QSqlDatabase::database(m_name, false));
        if (!q.exec(statement) || !q.next()) return QVariant();
        return q.value(0);
    }

private:
    QString m_name;
    bool m_ok = false;
};

inline smclab::db::RunCell cell(const QString& column, qint64 size, int repetition = 0,
                                const QString& workload = QStringLiteral("tcp_bw")) {
    return {workload, column == QLatin1String("TCP") ? QStringLiteral("tcp") : QStringLiteral("smcr"), column, size,
            repetition};
}

// A record touching every per-run table: `samples` time-series points.
inline smclab::db::RunRecord fullRecord(qint64 campaignId, const smclab::db::RunCell& c, double value,
                                        int samples = 20) {
    using namespace smclab::db;
    RunRecord r;
    r.campaignId = campaignId;
    r.cell = c;
    r.startedAt = QDateTime(QDate(2026, 3, 1), QTime(9, 44, 2), Qt::UTC);
    r.finishedAt = r.startedAt.addSecs(30);
    r.settings = {{QStringLiteral("autocorking_size"), QStringLiteral("65536")},
                  {QStringLiteral("wmem"), QStringLiteral("262144")},
                  {QStringLiteral("column"), c.column}};
    r.clientFacts = {{QStringLiteral("host"), QStringLiteral("lab-a")},
                     {QStringLiteral("kernel"), QStringLiteral("6.1.0-18-amd64")},
                     {QStringLiteral("fabric"), QStringLiteral("sim")},
                     {QStringLiteral("link_model"), QStringLiteral("cx4-25g")}};
    r.serverFacts = {{QStringLiteral("host"), QStringLiteral("lab-b")},
                     {QStringLiteral("kernel"), QStringLiteral("6.1.0-18-amd64")}};
    r.results = {{QStringLiteral("bw_mbps"), value}, {QStringLiteral("latency_us"), value / 100.0}};
    r.histograms = {{QStringLiteral("latency_us"), QStringLiteral("test-v1"), QByteArray("\x00\x01\x02\xff", 4)}};
    for (int i = 0; i < samples; ++i) r.samples.append({i * 100LL, QStringLiteral("bw_mbps"), value + i});
    r.counters = {{smcr::Side::client, QStringLiteral("cdc_msgs_sent"), 1000 + c.msgSize},
                  {smcr::Side::server, QStringLiteral("rdma_writes"), 2000 + c.msgSize}};
    r.settingChanges = {{1500, QStringLiteral("autocorking_size"), QStringLiteral("0")}};
    return r;
}

}  // namespace dbtest
