#include "postgres_server.h"

#include <memory>

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>

namespace dbtest {

namespace {

// initdb refuses to run as root; the test's server then runs as nobody.
bool asRoot() {
    return ::geteuid() == 0;
}

quint16 freeLoopbackPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    quint16 port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
        port = ntohs(address.sin_port);
    }
    ::close(fd);
    return port;
}

bool giveToServerUser(const QString& path) {
    if (!asRoot()) return true;
    const passwd* nobody = ::getpwnam("nobody");
    return nobody != nullptr && ::chown(QFile::encodeName(path).constData(), nobody->pw_uid, nobody->pw_gid) == 0;
}

}  // namespace

PostgresServer::~PostgresServer() {
    stop();
}

QString PostgresServer::binDir() {
    const QString initdb = QStandardPaths::findExecutable(QStringLiteral("initdb"));
    const QString pgctl = QStandardPaths::findExecutable(QStringLiteral("pg_ctl"));
    if (!initdb.isEmpty() && !pgctl.isEmpty()) return QFileInfo(QFileInfo(initdb).canonicalFilePath()).absolutePath();
    QDir versions(QStringLiteral("/usr/lib/postgresql"));
    QStringList found = versions.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    std::sort(found.begin(), found.end(), [](const QString& a, const QString& b) { return a.toInt() > b.toInt(); });
    for (const QString& version : found) {
        const QString bin = versions.filePath(version + QStringLiteral("/bin"));
        if (QFile::exists(bin + QStringLiteral("/initdb")) && QFile::exists(bin + QStringLiteral("/pg_ctl")))
            return bin;
    }
    return {};
}

bool PostgresServer::run(const QStringList& command, QString* why, int timeoutMs) const {
    QStringList args = command;
    if (asRoot()) args = QStringList{QStringLiteral("-u"), QStringLiteral("nobody"), QStringLiteral("--")} + args;
    const QString program = asRoot() ? QStringLiteral("runuser") : args.takeFirst();
    QProcess process;
    process.setWorkingDirectory(m_root);
    process.start(program, args);
    if (!process.waitForFinished(timeoutMs) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0) {
        *why = QStringLiteral("%1 failed: %2%3")
                   .arg(command.first(), QString::fromLocal8Bit(process.readAllStandardError()),
                        QString::fromLocal8Bit(process.readAllStandardOutput()));
        process.kill();
        process.waitForFinished(1000);
        return false;
    }
    return true;
}

bool PostgresServer::start(QString* why) {
    m_bin = binDir();
    if (m_bin.isEmpty()) {
        *why = QStringLiteral("PostgreSQL server binaries (initdb, pg_ctl) not found");
        return false;
    }
    if (!m_dir.isValid()) {
        *why = QStringLiteral("no temporary directory");
        return false;
    }
    // The server's user must reach its folder through the temporary one.
    QFile::setPermissions(m_dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                                            QFileDevice::ExeGroup | QFileDevice::ExeOther);
    m_root = m_dir.filePath(QStringLiteral("pg"));
    QDir().mkpath(m_root);
    QFile pw(m_root + QStringLiteral("/pwfile"));
    if (!pw.open(QIODevice::WriteOnly) || pw.write(password().toUtf8() + '\n') < 0) {
        *why = QStringLiteral("cannot write the password file");
        return false;
    }
    pw.close();
    if (!giveToServerUser(m_root) || !giveToServerUser(pw.fileName())) {
        *why = QStringLiteral("cannot hand %1 to the user nobody").arg(m_root);
        return false;
    }
    if (!run({m_bin + QStringLiteral("/initdb"), QStringLiteral("-D"), m_root + QStringLiteral("/data"),
              QStringLiteral("-U"), user(), QStringLiteral("--pwfile=") + pw.fileName(),
              QStringLiteral("--auth-host=scram-sha-256"), QStringLiteral("--auth-local=trust"), QStringLiteral("-E"),
              QStringLiteral("UTF8"), QStringLiteral("--locale=C"), QStringLiteral("--no-sync")},
             why)) {
        return false;
    }
    // A port free now may be taken by the time the server binds it: retry.
    for (int attempt = 0; attempt < 3; ++attempt) {
        m_port = freeLoopbackPort();
        if (launch(why)) return true;
        *why += log();
    }
    return false;
}

bool PostgresServer::launch(QString* why) {
    const QString options = QStringLiteral(
                                "-c listen_addresses=127.0.0.1 -p %1 -k %2 -c fsync=off "
                                "-c max_connections=40 -c shared_buffers=16MB")
                                .arg(m_port)
                                .arg(m_root);
    if (!run({m_bin + QStringLiteral("/pg_ctl"), QStringLiteral("-D"), m_root + QStringLiteral("/data"),
              QStringLiteral("-l"), m_root + QStringLiteral("/log"), QStringLiteral("-w"), QStringLiteral("-t"),
              QStringLiteral("30"), QStringLiteral("-o"), options, QStringLiteral("start")},
             why)) {
        return false;
    }
    m_running = true;
    return true;
}

bool PostgresServer::restart(QString* why) {
    stop();
    return launch(why);
}

void PostgresServer::stop() {
    if (!m_running) return;
    QString why;
    run({m_bin + QStringLiteral("/pg_ctl"), QStringLiteral("-D"), m_root + QStringLiteral("/data"),
         QStringLiteral("-m"), QStringLiteral("immediate"), QStringLiteral("-w"), QStringLiteral("stop")},
        &why, 20'000);
    m_running = false;
}

QString PostgresServer::url(const QString& database) const {
    return QStringLiteral("postgresql://%1@127.0.0.1:%2/%3").arg(user()).arg(m_port).arg(database);
}

bool PostgresServer::psql(const QString& statement, QString* why, const QString& database) const {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PGPASSWORD"), password());
    process.setProcessEnvironment(env);
    process.start(m_bin + QStringLiteral("/psql"),
                  {QStringLiteral("-X"), QStringLiteral("-q"), QStringLiteral("-v"), QStringLiteral("ON_ERROR_STOP=1"),
                   QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"), QString::number(m_port),
                   QStringLiteral("-U"), user(), QStringLiteral("-d"), database, QStringLiteral("-c"), statement});
    if (!process.waitForFinished(30'000) || process.exitCode() != 0) {
        *why = QStringLiteral("psql %1: %2").arg(statement, QString::fromLocal8Bit(process.readAllStandardError()));
        return false;
    }
    return true;
}

QString PostgresServer::log() const {
    QFile file(m_root + QStringLiteral("/log"));
    return file.open(QIODevice::ReadOnly) ? QString::fromLocal8Bit(file.readAll()) : QString();
}

bool usePostgres() {
    return qEnvironmentVariable("SMCLAB_TEST_DB_BACKEND") == QLatin1String("postgresql");
}

PostgresServer* sharedPostgres(QString* why) {
    // Stopped by the post-routine, before the process's statics go.
    static PostgresServer* server = nullptr;
    static QString failure;
    if (server == nullptr && failure.isEmpty()) {
        auto started = std::make_unique<PostgresServer>();
        if (started->start(&failure)) {
            server = started.release();
            qputenv("PGPASSWORD", PostgresServer::password().toUtf8());
            qAddPostRoutine([] {
                delete server;
                server = nullptr;
            });
        }
    }
    if (server == nullptr) *why = failure;
    return server;
}

QString storeLocation(const QTemporaryDir& dir, const QString& name, QString* why) {
    if (!usePostgres()) return dir.filePath(name);
    PostgresServer* server = sharedPostgres(why);
    if (server == nullptr) return {};
    static int counter = 0;
    QString database = name.toLower();
    database.replace(QRegularExpression(QStringLiteral("[^a-z0-9]")), QStringLiteral("_"));
    database = QStringLiteral("t%1_%2").arg(++counter).arg(database);
    if (!server->createDatabase(database, why)) return {};
    return server->url(database);
}

}  // namespace dbtest
