// A throwaway PostgreSQL server for the db tests: initdb into a temporary
// directory and pg_ctl start on a free loopback port (and a unix socket in
// that directory), as an unprivileged user (initdb refuses root: under root
// the server runs as "nobody" through runuser). Password authentication
// (scram-sha-256) on TCP, so tests can try a wrong password. Stopped
// (immediate mode) when destroyed.
#pragma once

#include <QString>
#include <QTemporaryDir>

namespace dbtest {

class PostgresServer {
public:
    PostgresServer() = default;
    ~PostgresServer();
    PostgresServer(const PostgresServer&) = delete;
    PostgresServer& operator=(const PostgresServer&) = delete;

    // The folder holding initdb and pg_ctl (PATH, else the newest
    // /usr/lib/postgresql/*/bin), or "" when PostgreSQL is not installed.
    static QString binDir();

    bool start(QString* why);
    // pg_ctl stop -m immediate: every connection drops at once, as when a
    // server crashes or the network goes; restart() brings it back on the same port.
    void stop();
    bool restart(QString* why);

    quint16 port() const { return m_port; }
    static QString user() { return QStringLiteral("smclab_test"); }
    static QString password() { return QStringLiteral("lab-secret-7600"); }
    // postgresql://smclab_test@127.0.0.1:PORT/DBNAME
    QString url(const QString& database) const;
    // CREATE DATABASE through psql; false with *why on failure.
    bool createDatabase(const QString& name, QString* why) const { return psql("CREATE DATABASE " + name, why); }
    bool psql(const QString& statement, QString* why, const QString& database = QStringLiteral("postgres")) const;
    QString log() const;

private:
    bool run(const QStringList& command, QString* why, int timeoutMs = 60'000) const;
    bool launch(QString* why);

    QTemporaryDir m_dir;
    QString m_root;  // m_dir/pg, owned by the server's user
    QString m_bin;
    quint16 m_port = 0;
    bool m_running = false;
};

// The store tests run against SQLite files, or against a PostgreSQL
// server when SMCLAB_TEST_DB_BACKEND=postgresql (ctest's *_postgresql
// variants): the server is started on first use and stopped at exit, every
// store name gets a fresh database, and PGPASSWORD is set for the store.
bool usePostgres();
// "" and *why set when the server cannot be started.
QString storeLocation(const QTemporaryDir& dir, const QString& name, QString* why);
// The shared server, started if need be (nullptr with *why when it cannot be).
PostgresServer* sharedPostgres(QString* why);

}  // namespace dbtest
