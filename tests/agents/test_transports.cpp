// The transport registry and the tcp transport over loopback.
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "transport.h"
#include "transport_factories.h"

using namespace smclab::transports;

namespace {

struct Pair {
    std::unique_ptr<Listener> listener;
    std::unique_ptr<Stream> client;
    std::unique_ptr<Stream> server;
};

Pair connectedPair(Transport& t) {
    Pair p;
    auto listener = t.listen("127.0.0.1", 0, 16);
    if (!listener) return p;
    p.listener = std::move(listener).value();
    auto client = t.connect("127.0.0.1", p.listener->localPort(), {});
    if (!client) return p;
    p.client = std::move(client).value();
    auto server = p.listener->accept();
    if (!server) return p;
    p.server = std::move(server).value();
    return p;
}

std::string readExactly(Stream& s, size_t n) {
    std::string out(n, '\0');
    size_t got = 0;
    while (got < n) {
        auto r = s.read(out.data() + got, n - got);
        if (!r || *r == 0) break;
        got += *r;
    }
    out.resize(got);
    return out;
}

}  // namespace

class TestTransports : public QObject {
    Q_OBJECT
private slots:
    void registryListsThreeTransports() {
        QStringList names;
        for (const TransportEntry& e : transportRegistry()) names << e.name;
        QCOMPARE(names, (QStringList{"tcp", "smcr", "ksmc"}));
        QVERIFY(findTransport("tcp")->probe().available);
        auto unknown = createTransport("udp");
        QVERIFY(!unknown.ok());
        QCOMPARE(unknown.error().code, smcr::Errc::notFound);
        QVERIFY(unknown.error().message.find("known: tcp, smcr, ksmc") != std::string::npos);
    }

    void unavailableTransportsSayWhy() {
        const Availability smcr = findTransport("smcr")->probe();
        if (!smcr.available) {
            QVERIFY(!smcr.reason.empty());
            auto made = createTransport("smcr");
            QVERIFY(!made.ok());
            QCOMPARE(made.error().code, smcr::Errc::notSupported);
        }
        const Availability ksmc = findTransport("ksmc")->probe();
        if (ksmc.available) QSKIP("this kernel has AF_SMC");
        QVERIFY2(ksmc.reason.rfind("kernel SMC not available: ", 0) == 0, ksmc.reason.c_str());
        auto made = createTransport("ksmc");
        QVERIFY(!made.ok());
        QVERIFY(made.error().message.find("kernel SMC not available") != std::string::npos);
    }

    void tcpStreamsCarryBytesBothWays() {
        auto t = createTransport("tcp");
        QVERIFY(t.ok());
        Pair p = connectedPair(**t);
        QVERIFY(p.server && p.client);
        QVERIFY(p.client->setNoDelay(true).ok());
        std::string big(1 << 20, '\0');
        for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31 + 7);
        std::thread writer([&] {
            size_t sent = 0;
            while (sent < big.size()) {
                auto n = p.client->write(big.data() + sent, big.size() - sent);
                if (!n) return;
                sent += *n;
            }
            (void)p.client->shutdownWrite();
        });
        const std::string got = readExactly(*p.server, big.size());
        writer.join();
        QCOMPARE(got.size(), big.size());
        QVERIFY(got == big);
        char byte = 0;
        auto eof = p.server->read(&byte, 1);
        QVERIFY(eof.ok());
        QCOMPARE(*eof, size_t(0));  // end of stream after shutdownWrite

        const char a[] = "head", b[] = "er+body";
        iovec iov[2] = {{const_cast<char*>(a), 4}, {const_cast<char*>(b), 7}};
        QVERIFY(p.server->setCork(true).ok());
        auto n = p.server->writev(iov, 2);
        QVERIFY(n.ok());
        QCOMPARE(*n, size_t(11));
        QVERIFY(p.server->setCork(false).ok());
        QCOMPARE(readExactly(*p.client, 11), std::string("header+body"));
        QVERIFY(p.client->peerAddress().rfind("127.0.0.1:", 0) == 0);
    }

    void sendfileFromAFile() {
        auto t = createTransport("tcp");
        QVERIFY(t.ok());
        Pair p = connectedPair(**t);
        QVERIFY(p.server && p.client);
        const int fd = ::memfd_create("test", 0);
        QVERIFY(fd >= 0);
        const std::string content = "0123456789abcdefghij";
        QCOMPARE(::write(fd, content.data(), content.size()), ssize_t(content.size()));
        auto n = p.server->sendfile(fd, 5, 10);
        ::close(fd);
        QVERIFY(n.ok());
        QCOMPARE(*n, size_t(10));
        QCOMPARE(readExactly(*p.client, 10), std::string("56789abcde"));
    }

    void timeoutsAndNonBlocking() {
        auto t = createTransport("tcp");
        QVERIFY(t.ok());
        Pair p = connectedPair(**t);
        QVERIFY(p.server && p.client);
        char buf[8];
        QVERIFY(p.server->setIoTimeoutMs(50).ok());
        auto r = p.server->read(buf, sizeof buf);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, smcr::Errc::timedOut);
        QVERIFY(p.server->setNonBlocking(true).ok());
        r = p.server->read(buf, sizeof buf);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, smcr::Errc::wouldBlock);
        QVERIFY(!p.server->setIoTimeoutMs(-1).ok());
        auto ready = p.server->waitReady(Interest::read, 20);
        QVERIFY(ready.ok());
        QCOMPARE(*ready, Interest::none);
        QVERIFY(p.client->write("x", 1).ok());
        ready = p.server->waitReady(Interest::read, 1000);
        QVERIFY(any(*ready & Interest::read));
    }

    void pollerReportsReadinessAndWakes() {
        auto t = createTransport("tcp");
        QVERIFY(t.ok());
        Pair p = connectedPair(**t);
        QVERIFY(p.server && p.client);
        auto poller = (*t)->createPoller();
        QVERIFY(poller.ok());
        int tag = 0;
        QVERIFY((*poller)->add(*p.server, Interest::read, &tag).ok());
        PollEvent events[4];
        auto n = (*poller)->wait(events, 0);
        QVERIFY(n.ok());
        QCOMPARE(*n, size_t(0));
        QVERIFY(p.client->write("ping", 4).ok());
        n = (*poller)->wait(events, 1000);
        QCOMPARE(*n, size_t(1));
        QCOMPARE(events[0].userData, static_cast<void*>(&tag));
        QVERIFY(any(events[0].ready & Interest::read));
        // Level-triggered: still ready until read.
        n = (*poller)->wait(events, 0);
        QCOMPARE(*n, size_t(1));
        QVERIFY((*poller)->modify(*p.server, Interest::write, &tag).ok());
        n = (*poller)->wait(events, 1000);
        QVERIFY(any(events[0].ready & Interest::write));
        QVERIFY((*poller)->remove(*p.server).ok());
        std::thread waker([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            (*poller)->wakeup();
        });
        n = (*poller)->wait(events, 5000);
        waker.join();
        QVERIFY(n.ok());
        QCOMPARE(*n, size_t(0));
        QVERIFY(!(*poller)->add(*p.server, Interest::read, nullptr).ok());
        p.client->close();
        QVERIFY((*poller)->add(*p.server, Interest::read, &tag).ok());
        n = (*poller)->wait(events, 1000);
        QVERIFY(any(events[0].ready & Interest::hangup) || any(events[0].ready & Interest::read));
    }

    void connectErrors() {
        auto t = createTransport("tcp");
        QVERIFY(t.ok());
        auto listener = (*t)->listen("127.0.0.1", 0, 1);
        QVERIFY(listener.ok());
        const uint16_t port = (*listener)->localPort();
        (*listener)->close();
        auto refused = (*t)->connect("127.0.0.1", port, {});
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().code, smcr::Errc::connectionRefused);
        auto unresolvable = (*t)->connect("no-such-host.invalid", 80, {});
        QVERIFY(!unresolvable.ok());
    }

    void settingsNameTheSetting() {
        auto t = createTransport("tcp");
        QVERIFY(t.ok());
        bool found = false;
        for (const SettingInfo& s : (*t)->settings()) found = found || s.name == "tcp_autocorking";
        QVERIFY(found);
        auto unknown = (*t)->applySetting("autocorking_size", "1");
        QVERIFY(!unknown.ok());
        QVERIFY(unknown.error().message.rfind("autocorking_size: not a setting of the tcp transport", 0) == 0);
        auto bad = (*t)->applySetting("tcp_autocorking", "yes please");
        QVERIFY(!bad.ok());
        QVERIFY(bad.error().message.rfind("tcp_autocorking: expects an integer", 0) == 0);
        QVERIFY(!createTransport("tcp", {{"fabric", "sim"}}).ok());
        const Counters c = (*t)->counters();
        QVERIFY(!c.empty());
    }

    // ksmc's live settings are the files of /proc/sys/net/smc by name. This
    // kernel has no SMC, so the same mapping runs on a stand-in directory.
    void ksmcSettingsMapTheSmcSysctlDirectory() {
        QCOMPARE(QString(kKsmcSysctlDirectory), QString("/proc/sys/net/smc"));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string root = dir.path().toStdString();
        auto put = [&](const char* name, const char* text) {
            FILE* f = std::fopen((root + "/" + name).c_str(), "w");
            QVERIFY(f != nullptr);
            std::fputs(text, f);
            std::fclose(f);
        };
        put("autocorking_size", "65536\n");
        put("wmem", "262144\n");
        put("smcr_max_links_per_lgr", "2\n");
        const SysctlSettings settings = ksmcSysctls(root);
        std::map<std::string, SettingInfo> byName;
        for (const SettingInfo& s : settings.list()) byName[s.name] = s;
        QCOMPARE(byName.size(), size_t{3});
        QCOMPARE(QString::fromStdString(byName["autocorking_size"].value), QString("65536"));
        QCOMPARE(byName["autocorking_size"].scope, SettingScope::immediate);
        QCOMPARE(byName["wmem"].scope, SettingScope::newConnections);
        QCOMPARE(byName["smcr_max_links_per_lgr"].scope, SettingScope::newLinkGroups);

        QVERIFY(settings.apply("ksmc", "autocorking_size", "0").ok());
        QFile written(QString::fromStdString(root + "/autocorking_size"));
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.readAll(), QByteArray("0\n"));
        auto bad = settings.apply("ksmc", "wmem", "lots");
        QVERIFY(!bad.ok());
        QVERIFY(bad.error().message.rfind("wmem: expects an integer", 0) == 0);
        auto unknown = settings.apply("ksmc", "tcp_autocorking", "1");
        QVERIFY(!unknown.ok());
        QCOMPARE(unknown.error().code, smcr::Errc::notFound);
        QVERIFY2(unknown.error().message.find("not a setting of the ksmc transport") != std::string::npos &&
                     unknown.error().message.find("autocorking_size") != std::string::npos,
                 unknown.error().message.c_str());
        // A file that vanished (a kernel without the knob) is refused, not created.
        QVERIFY(QFile::remove(QString::fromStdString(root + "/wmem")));
        auto gone = settings.apply("ksmc", "wmem", "1");
        QVERIFY(!gone.ok());
        QCOMPARE(gone.error().code, smcr::Errc::notSupported);
        QVERIFY(!QFile::exists(QString::fromStdString(root + "/wmem")));
    }
};

QTEST_GUILESS_MAIN(TestTransports)
#include "test_transports.moc"
