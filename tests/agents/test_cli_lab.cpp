// smclab lab deploy|status|stop against a real sshd (Debian openssh-server)
// that the test runs in a network namespace of its own, with a host key and
// a client key generated for the test and an ssh config naming them (no
// prompt is possible: BatchMode). deploy copies the agent, starts it with a
// fresh token (0600 on both ends), checks its hello and writes the lab
// file; status reports it up; a second deploy replaces it with a new token;
// stop ends it and status says down; a host without sshd fails with ssh's
// message. `smclab run --lab` drives a campaign on the deployed agent with
// no address or token typed, and its errors name the host. Skips without
// root, network namespaces or sshd. Package mode (--system) is deployed to
// a host without systemd: the package is installed, the user mode serves.
#include <sys/stat.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "agent_process.h"
#include "smclab_process.h"

using namespace smclab::test;

namespace {

bool run(const QString& program, const QStringList& args, QString* output = nullptr, int timeoutMs = 20'000) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    const bool ok = p.waitForFinished(timeoutMs) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    if (output) *output = QString::fromLocal8Bit(p.readAll());
    return ok;
}

int modeOf(const QString& path) {
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0) return -1;
    return static_cast<int>(st.st_mode & 0777);
}

QString readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

bool writeFile(const QString& path, const QString& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text.toUtf8()) >= 0;
}

}  // namespace

class TestCliLab : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_ns;
    QString m_hostSide;
    QString m_nsAddress;
    QString m_missingAddress;
    QProcess m_sshd;
    QProcess m_chrootSshd;  // packageModeWithoutSystemd's host: sshd in an overlay of / (see there)
    bool m_nsCreated = false;

    QString path(const QString& name) const { return m_dir.filePath(name); }

    QStringList common() const {
        return {QStringLiteral("--lab"),        path(QStringLiteral("lab.json")),
                QStringLiteral("--ssh-config"), path(QStringLiteral("ssh_config")),
                QStringLiteral("--remote-dir"), path(QStringLiteral("remote"))};
    }

private slots:
    void initTestCase() {
        if (::geteuid() != 0) QSKIP("needs root (ip netns add, sshd)");
        if (!QFile::exists(QStringLiteral("/usr/sbin/sshd"))) QSKIP("sshd not installed (Debian openssh-server)");
        const int pid = static_cast<int>(::getpid());
        m_ns = QStringLiteral("smclab-lab-%1").arg(pid);
        m_hostSide = QStringLiteral("sl%1h").arg(pid);
        const QString base = QStringLiteral("10.%1.%2.").arg(200 + (pid >> 8) % 50).arg(pid & 0xff);
        const QString hostAddress = base + QStringLiteral("1");
        m_nsAddress = base + QStringLiteral("2");
        m_missingAddress = base + QStringLiteral("3");
        QString out;
        if (!run(QStringLiteral("ip"), {QStringLiteral("netns"), QStringLiteral("add"), m_ns}, &out)) {
            QSKIP(qPrintable(QStringLiteral("network namespaces unavailable: ") + out));
        }
        m_nsCreated = true;
        const QList<QStringList> steps{
            {"link", "add", m_hostSide, "type", "veth", "peer", "name", "lab0", "netns", m_ns},
            {"addr", "add", hostAddress + "/29", "dev", m_hostSide},
            {"link", "set", m_hostSide, "up"},
            {"-n", m_ns, "addr", "add", m_nsAddress + "/29", "dev", "lab0"},
            {"-n", m_ns, "link", "set", "lab0", "up"},
            {"-n", m_ns, "link", "set", "lo", "up"},
        };
        for (const QStringList& step : steps)
            QVERIFY2(run(QStringLiteral("ip"), step, &out), qPrintable(step.join(' ') + ": " + out));

        for (const char* key : {"host_key", "id"}) {
            QVERIFY2(run(QStringLiteral("ssh-keygen"),
                         {"-q", "-t", "ed25519", "-N", "", "-C", "smclab-test", "-f", path(key)}, &out),
                     qPrintable(out));
        }
        QVERIFY(QFile::copy(path(QStringLiteral("id.pub")), path(QStringLiteral("authorized_keys"))));
        QVERIFY(writeFile(path(QStringLiteral("known_hosts")),
                          m_nsAddress + QLatin1Char(' ') + readFile(path(QStringLiteral("host_key.pub")))));
        QVERIFY(writeFile(path(QStringLiteral("sshd_config")),
                          QStringLiteral("ListenAddress %1\nPort 22\nHostKey %2\nAuthorizedKeysFile %3\n"
                                         "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
                                         "StrictModes no\nPermitRootLogin prohibit-password\nPidFile %4\n")
                              .arg(m_nsAddress, path(QStringLiteral("host_key")),
                                   path(QStringLiteral("authorized_keys")), path(QStringLiteral("sshd.pid")))));
        QVERIFY(writeFile(path(QStringLiteral("ssh_config")),
                          QStringLiteral("Host *\n  User root\n  IdentityFile %1\n  IdentitiesOnly yes\n"
                                         "  UserKnownHostsFile %2\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n")
                              .arg(path(QStringLiteral("id")), path(QStringLiteral("known_hosts")))));
        QDir().mkpath(QStringLiteral("/run/sshd"));  // sshd's privilege separation directory
        m_sshd.setProcessChannelMode(QProcess::MergedChannels);
        m_sshd.start(
            QStringLiteral("ip"),
            {QStringLiteral("netns"), QStringLiteral("exec"), m_ns, QStringLiteral("/usr/sbin/sshd"),
             QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"), path(QStringLiteral("sshd_config"))});
        QVERIFY(m_sshd.waitForStarted(5000));
        // Ready when a login works.
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return run(QStringLiteral("ssh"), {"-F", path(QStringLiteral("ssh_config")), "-o",
                                                            "BatchMode=yes", m_nsAddress, "true"});
                     },
                     10'000),
                 m_sshd.readAll().constData());
    }

    void cleanupTestCase() {
        // The agent a failed test may have left (its pid file is ours).
        const QString pid = readFile(path(QStringLiteral("remote/agent.pid"))).trimmed();
        if (!pid.isEmpty()) run(QStringLiteral("kill"), {pid});
        const QString chrootPid =
            readFile(path(QStringLiteral("overlay/upper")) + path(QStringLiteral("remote2/agent.pid"))).trimmed();
        if (!chrootPid.isEmpty()) run(QStringLiteral("kill"), {chrootPid});
        if (m_chrootSshd.state() != QProcess::NotRunning) {
            m_chrootSshd.kill();
            m_chrootSshd.waitForFinished(5000);
        }
        if (m_sshd.state() != QProcess::NotRunning) {
            m_sshd.kill();
            m_sshd.waitForFinished(5000);
        }
        if (m_nsCreated) run(QStringLiteral("ip"), {QStringLiteral("netns"), QStringLiteral("del"), m_ns});
    }

    void deployStatusStop() {
        const quint16 agentPort = 7601;
        const QStringList deploy =
            QStringList{QStringLiteral("lab"), QStringLiteral("deploy")} + common() +
            QStringList{QStringLiteral("--agent-port"), QString::number(agentPort), QStringLiteral("--agent-binary"),
                        agentBinary(),
                        // The workloads' peer is the host's own lab address.
                        QStringLiteral("--agent-arg=--allow-peer=%1/32").arg(m_nsAddress), m_nsAddress};
        const Outcome first = runSmclab(deploy);
        QVERIFY2(first.exitCode == 0, qPrintable(first.out + first.err));
        QVERIFY2(first.out.contains(QStringLiteral("agent up on %1:%2").arg(m_nsAddress).arg(agentPort)),
                 qPrintable(first.out));

        // The lab file names the host, port and a token file; tokens are 0600 on both ends.
        const QJsonObject lab = QJsonDocument::fromJson(readFile(path(QStringLiteral("lab.json"))).toUtf8()).object();
        const QJsonObject host = lab.value(QStringLiteral("hosts")).toArray().first().toObject();
        QCOMPARE(host.value(QStringLiteral("host")).toString(), m_nsAddress);
        QCOMPARE(host.value(QStringLiteral("agent_port")).toInt(), int(agentPort));
        const QString tokenFile = host.value(QStringLiteral("token_file")).toString();
        QCOMPARE(modeOf(path(QStringLiteral("lab.json"))), 0600);
        QCOMPARE(modeOf(tokenFile), 0600);
        QCOMPARE(modeOf(path(QStringLiteral("remote/agent.token"))), 0600);
        const QString token = readFile(tokenFile).trimmed();
        QVERIFY(token.size() >= 40);
        QCOMPARE(readFile(path(QStringLiteral("remote/agent.token"))).trimmed(), token);

        // The deployed lab runs a campaign as is: its one host serves both sides, its token from the lab.
        QVERIFY(writeFile(path(QStringLiteral("campaign.json")),
                          QStringLiteral(R"({"name": "lab", "workloads": [{"workload": "tcp_lat", "label": "Latency"}],
                              "columns": [{"label": "TCP", "transport": "tcp"}], "sizes": [64], "durationMs": 300,
                              "sampleIntervalMs": 100})")));
        const QStringList labRun{QStringLiteral("run"),   path(QStringLiteral("campaign.json")),
                                 QStringLiteral("--lab"), path(QStringLiteral("lab.json")),
                                 QStringLiteral("--db"),  path(QStringLiteral("results.db"))};
        const Outcome ran = runSmclab(labRun);
        QVERIFY2(ran.exitCode == 0 && ran.out.contains(QStringLiteral("Latency")), qPrintable(ran.out + ran.err));
        const Outcome named = runSmclab(
            labRun + QStringList{QStringLiteral("--agents"), m_nsAddress + QLatin1Char(',') + m_missingAddress});
        QCOMPARE(named.exitCode, 1);
        QVERIFY2(named.err.contains(QStringLiteral("host %1 is not in the lab file").arg(m_missingAddress)),
                 qPrintable(named.err));

        const QStringList status = QStringList{QStringLiteral("lab"), QStringLiteral("status")} + common();
        Outcome up = runSmclab(status);
        QVERIFY2(up.exitCode == 0, qPrintable(up.out + up.err));
        QVERIFY2(up.out.contains(QStringLiteral(" up ")) && up.out.contains(QStringLiteral("smclab-agent ")) &&
                     up.out.contains(QStringLiteral("tcp")),
                 qPrintable(up.out));

        // Deploying again replaces the agent (same port) with a new token.
        const Outcome second = runSmclab(deploy);
        QVERIFY2(second.exitCode == 0, qPrintable(second.out + second.err));
        QVERIFY(readFile(tokenFile).trimmed() != token);
        up = runSmclab(status);
        QVERIFY2(up.exitCode == 0, qPrintable(up.out + up.err));

        // One shared token instead (what `smclab run --token-file F` needs): the agent takes it.
        QVERIFY(writeFile(path(QStringLiteral("shared.token")), QStringLiteral("shared-lab-token-0123456789\n")));
        const Outcome shared =
            runSmclab(deploy + QStringList{QStringLiteral("--token-file"), path(QStringLiteral("shared.token"))});
        QVERIFY2(shared.exitCode == 0, qPrintable(shared.out + shared.err));
        QCOMPARE(readFile(path(QStringLiteral("remote/agent.token"))).trimmed(),
                 QStringLiteral("shared-lab-token-0123456789"));
        QVERIFY(runSmclab(status).exitCode == 0);

        const Outcome stopped =
            runSmclab(QStringList{QStringLiteral("lab"), QStringLiteral("stop")} + common() + QStringList{m_nsAddress});
        QVERIFY2(stopped.exitCode == 0 && stopped.out.contains(QStringLiteral("stopped")),
                 qPrintable(stopped.out + stopped.err));
        const Outcome down = runSmclab(status);
        QCOMPARE(down.exitCode, 1);
        QVERIFY2(down.out.contains(QStringLiteral(" down ")), qPrintable(down.out));
        const Outcome gone =
            runSmclab({QStringLiteral("run"), path(QStringLiteral("campaign.json")), QStringLiteral("--lab"),
                       path(QStringLiteral("lab.json")), QStringLiteral("--db"), path(QStringLiteral("results.db")),
                       QStringLiteral("--connect-timeout"), QStringLiteral("2")});
        QCOMPARE(gone.exitCode, 1);
        QVERIFY2(gone.err.contains(QStringLiteral("%1:%2").arg(m_nsAddress).arg(agentPort)), qPrintable(gone.err));
    }

    // A host named by an ssh alias (a Host block with HostName, as labs name
    // their servers): deploy resolves it as ssh does (ssh -G), dials the
    // address, and records both in the lab file, so status reaches it too.
    void deployToSshAlias() {
        const quint16 agentPort = 7602;
        QVERIFY(writeFile(path(QStringLiteral("ssh_config_alias")),
                          QStringLiteral("Host labalias\n  HostName %1\n  Port 22\n").arg(m_nsAddress) +
                              readFile(path(QStringLiteral("ssh_config")))));
        const QStringList options{QStringLiteral("--lab"),        path(QStringLiteral("alias-lab.json")),
                                  QStringLiteral("--ssh-config"), path(QStringLiteral("ssh_config_alias")),
                                  QStringLiteral("--remote-dir"), path(QStringLiteral("remote-alias"))};
        const Outcome deployed =
            runSmclab(QStringList{QStringLiteral("lab"), QStringLiteral("deploy")} + options +
                      QStringList{QStringLiteral("--agent-port"), QString::number(agentPort),
                                  QStringLiteral("--agent-binary"), agentBinary(), QStringLiteral("labalias")});
        QVERIFY2(deployed.exitCode == 0, qPrintable(deployed.out + deployed.err));
        QVERIFY2(deployed.out.contains(QStringLiteral("labalias: agent up on %1:%2").arg(m_nsAddress).arg(agentPort)),
                 qPrintable(deployed.out));
        const QJsonObject lab =
            QJsonDocument::fromJson(readFile(path(QStringLiteral("alias-lab.json"))).toUtf8()).object();
        const QJsonObject host = lab.value(QStringLiteral("hosts")).toArray().first().toObject();
        QCOMPARE(host.value(QStringLiteral("host")).toString(), QStringLiteral("labalias"));
        QCOMPARE(host.value(QStringLiteral("address")).toString(), m_nsAddress);
        const Outcome up = runSmclab(QStringList{QStringLiteral("lab"), QStringLiteral("status")} + options);
        QVERIFY2(up.exitCode == 0 && up.out.contains(QStringLiteral(" up ")), qPrintable(up.out + up.err));
        const Outcome stopped = runSmclab(QStringList{QStringLiteral("lab"), QStringLiteral("stop")} + options +
                                          QStringList{QStringLiteral("labalias")});
        QVERIFY2(stopped.exitCode == 0, qPrintable(stopped.out + stopped.err));
    }

    // Package mode on a host whose systemd is not running: the .deb (built
    // here with cpack) is installed, the token and settings written, the unit
    // left alone, and the user-mode agent serves, with a note saying so. The
    // host is an sshd in this namespace chrooted into an overlay of / in a
    // mount namespace of its own, so the package lands in the overlay's upper
    // folder and this machine's dpkg database is never touched.
    void packageModeWithoutSystemd() {
        const QString cpack = QStandardPaths::findExecutable(QStringLiteral("cpack"));
        const QString buildDir = QFileInfo(agentBinary()).absolutePath() + QStringLiteral("/..");
        if (cpack.isEmpty() || !QFile::exists(buildDir + QStringLiteral("/CPackConfig.cmake")))
            QSKIP("cpack or the build tree's CPackConfig.cmake is missing");
        if (QStandardPaths::findExecutable(QStringLiteral("unshare")).isEmpty())
            QSKIP("unshare (util-linux) is missing");
        QString out;
        // The agent's package alone; no dpkg-shlibdeps pass (its libraries are this machine's anyway).
        QVERIFY2(run(cpack,
                     {"-G", "DEB", "-D", "CPACK_COMPONENTS_ALL=agent", "-D", "CPACK_DEBIAN_PACKAGE_SHLIBDEPS=OFF",
                      "--config", buildDir + QStringLiteral("/CPackConfig.cmake"), "-B", path(QStringLiteral("debs"))},
                     &out, 120'000),
                 qPrintable(out));
        const QStringList debs =
            QDir(path(QStringLiteral("debs"))).entryList({QStringLiteral("smclab-agent_*.deb")}, QDir::Files);
        QVERIFY2(debs.size() == 1, qPrintable(out));
        const QString deb = path(QStringLiteral("debs/")) + debs.front();

        const QString upper = path(QStringLiteral("overlay/upper"));
        const QString merged = path(QStringLiteral("overlay/merged"));
        for (const char* dir : {"overlay/upper", "overlay/work", "overlay/merged"}) QVERIFY(QDir().mkpath(path(dir)));
        QVERIFY(writeFile(path(QStringLiteral("sshd_config2")),
                          readFile(path(QStringLiteral("sshd_config")))
                              .replace(QStringLiteral("Port 22\n"), QStringLiteral("Port 2222\n"))
                              .replace(path(QStringLiteral("sshd.pid")), path(QStringLiteral("sshd2.pid")))));
        QFile known(path(QStringLiteral("known_hosts")));
        QVERIFY(known.open(QIODevice::Append));
        known.write(
            QStringLiteral("[%1]:2222 %2").arg(m_nsAddress, readFile(path(QStringLiteral("host_key.pub")))).toUtf8());
        known.close();
        const QString script =
            QStringLiteral(
                "mount -t overlay overlay -o lowerdir=/,upperdir=%1,workdir=%2 %3 && "
                "mount --rbind /proc %3/proc && mount --rbind /dev %3/dev && "
                "mount -t tmpfs tmpfs %3/run && mkdir -p %3/run/sshd && "
                "exec chroot %3 /usr/sbin/sshd -D -e -f %4")
                .arg(upper, path(QStringLiteral("overlay/work")), merged, path(QStringLiteral("sshd_config2")));
        m_chrootSshd.setProcessChannelMode(QProcess::MergedChannels);
        m_chrootSshd.start(QStringLiteral("ip"), {"netns", "exec", m_ns, "unshare", "--mount", "--propagation",
                                                  "private", "sh", "-c", script});
        QVERIFY(m_chrootSshd.waitForStarted(5000));
        if (!QTest::qWaitFor(
                [&] {
                    return m_chrootSshd.state() == QProcess::NotRunning ||
                           run(QStringLiteral("ssh"), {"-F", path(QStringLiteral("ssh_config")), "-p", "2222", "-o",
                                                       "BatchMode=yes", m_nsAddress, "true"});
                },
                10'000) ||
            m_chrootSshd.state() == QProcess::NotRunning) {
            QSKIP(qPrintable(QStringLiteral("no overlay chroot for the package host: ") +
                             QString::fromLocal8Bit(m_chrootSshd.readAll())));
        }

        const QStringList args{QStringLiteral("--lab"),        path(QStringLiteral("lab2.json")),
                               QStringLiteral("--ssh-config"), path(QStringLiteral("ssh_config")),
                               QStringLiteral("--remote-dir"), path(QStringLiteral("remote2")),
                               QStringLiteral("--port"),       QStringLiteral("2222")};
        const Outcome deployed = runSmclab(
            QStringList{QStringLiteral("lab"), QStringLiteral("deploy")} + args +
                QStringList{QStringLiteral("--agent-port"), QStringLiteral("7602"), QStringLiteral("--agent-binary"),
                            agentBinary(), QStringLiteral("--system"), QStringLiteral("--package"), deb, m_nsAddress},
            180'000);
        QVERIFY2(deployed.exitCode == 0, qPrintable(deployed.out + deployed.err));
        QVERIFY2(deployed.out.contains(QStringLiteral("systemd is not running")) &&
                     deployed.out.contains(QStringLiteral("the package is installed")) &&
                     deployed.out.contains(QStringLiteral("agent up on %1:7602").arg(m_nsAddress)),
                 qPrintable(deployed.out));
        // What the package and the deploy wrote, in the overlay only.
        QVERIFY(QFile::exists(upper + QStringLiteral("/usr/bin/smclab-agent")));
        QVERIFY(!QFile::exists(QStringLiteral("/etc/smclab/lab-deploy.conf")));
        const QString tokenFile = upper + QStringLiteral("/etc/smclab/agent.token");
        QCOMPARE(modeOf(tokenFile), 0600);
        const QJsonObject lab = QJsonDocument::fromJson(readFile(path(QStringLiteral("lab2.json"))).toUtf8()).object();
        const QJsonObject host = lab.value(QStringLiteral("hosts")).toArray().first().toObject();
        QCOMPARE(readFile(tokenFile).trimmed(),
                 readFile(host.value(QStringLiteral("token_file")).toString()).trimmed());
        QCOMPARE(host.value(QStringLiteral("mode")).toString(), QStringLiteral("user"));
        QVERIFY(readFile(upper + QStringLiteral("/etc/smclab/lab-deploy.conf"))
                    .contains(QStringLiteral("SMCLAB_AGENT_LISTEN=0.0.0.0:7602")));
        QVERIFY(readFile(upper + QStringLiteral("/etc/systemd/system/smclab-agent.service.d/lab-deploy.conf"))
                    .contains(QStringLiteral("EnvironmentFile=/etc/smclab/lab-deploy.conf")));

        const Outcome stopped =
            runSmclab(QStringList{QStringLiteral("lab"), QStringLiteral("stop")} + args + QStringList{m_nsAddress});
        QVERIFY2(stopped.exitCode == 0 && stopped.out.contains(QStringLiteral("stopped")),
                 qPrintable(stopped.out + stopped.err));
    }

    void unreachableHostFailsWithSshsMessage() {
        const Outcome o = runSmclab(QStringList{QStringLiteral("lab"), QStringLiteral("deploy")} + common() +
                                    QStringList{QStringLiteral("--agent-binary"), agentBinary(), m_missingAddress});
        QCOMPARE(o.exitCode, 1);
        QVERIFY2(o.err.contains(QStringLiteral("ssh failed")) && o.err.contains(m_missingAddress), qPrintable(o.err));
        QCOMPARE(runSmclab({QStringLiteral("lab"), QStringLiteral("deploy")}).exitCode, 2);
        QCOMPARE(runSmclab({QStringLiteral("lab"), QStringLiteral("frobnicate")}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliLab)
#include "test_cli_lab.moc"
