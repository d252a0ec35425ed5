// The backend registry, the sim's address scheme and the interface's
// not-supported answers, in one process.
#include <cstdlib>
#include <string>

#include <smcr/fabric.h>
#include <smcr/fabric_sim.h>

#include <QTest>

using namespace smcr::fabric;
using smcr::Errc;

class TestFabricRegistry : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        const std::string dir = "/dev/shm/smclab-regtest-" + std::to_string(getpid());
        setenv("SMCR_SIM_DIR", dir.c_str(), 1);
    }
    void cleanupTestCase() {
        QVERIFY(system(("rm -rf '" + std::string(std::getenv("SMCR_SIM_DIR")) + "'").c_str()) == 0);
    }

    void backendsAreListed() {
        QVERIFY(findBackend("sim") != nullptr);
        QVERIFY(findBackend("verbs") != nullptr);
        QVERIFY(findBackend("nope") == nullptr);
        QVERIFY(findBackend("sim")->probe().ok());
        const auto verbsProbe = findBackend("verbs")->probe();
        if (!verbsProbe.ok()) {
            // Either not built or no device: the message says which, plainly.
            const std::string& message = verbsProbe.error().message;
            QVERIFY2(message.find("no RDMA device on this host") != std::string::npos ||
                         message.find("libibverbs was not found") != std::string::npos,
                     message.c_str());
        }
    }

    void openErrorsAreClear() {
        auto missing = openDevice("nope");
        QVERIFY(!missing.ok());
        QCOMPARE(missing.error().code, Errc::notFound);
        auto badLink = openDevice("sim", {{"link", "warp-drive"}});
        QVERIFY(!badLink.ok());
        QCOMPARE(badLink.error().code, Errc::invalidArgument);
        auto badOption = openDevice("sim", {{"colour", "blue"}});
        QCOMPARE(badOption.error().code, Errc::invalidArgument);
        auto named = openDevice("sim:sim-00000001");
        QCOMPARE(named.error().code, Errc::notSupported);
    }

    void simDeviceShape() {
        auto dev = openDevice("sim", {{"link", "cx4-25g"}});
        QVERIFY(dev.ok());
        const DeviceInfo& info = dev.value()->info();
        QCOMPARE(info.backend, std::string("sim"));
        QCOMPARE(info.ports.size(), size_t{2});
        QVERIFY(info.ports[0].gid != info.ports[1].gid);
        QVERIFY(info.limits.maxQpWr >= 2048);
        QVERIFY(info.limits.maxInlineBytes >= 44);  // a CDC message fits inline
        QCOMPARE(info.ports[0].activeMtu, PathMtu::mtu1024);
        for (const PortInfo& port : info.ports) {
            auto address = sim::decodeSimGid(port.gid);
            QVERIFY(address.ok());
            QCOMPARE(address->port, port.portNum);
            QVERIFY(sim::simMac(address->instance, address->port) == port.mac);
        }
        sim::SimControl* control = sim::simControl(*dev.value());
        QVERIFY(control != nullptr);
        QCOMPARE(control->link().name, std::string("cx4-25g"));
        QCOMPARE(control->link().bandwidthGbps, 25.0);
        // What a waiter asks any device (fabric.h): the sim's work runs in
        // its owner's calls, nothing is due on a fresh device, RNR NAKs are
        // counted.
        QCOMPARE(dev.value()->progressModel(), ProgressModel::ownerCalls);
        QCOMPARE(dev.value()->nextDueNs(), uint64_t{0});
        auto rnr = dev.value()->rnrCounters();
        QVERIFY(rnr.ok());
        QCOMPARE(rnr->naksSent, uint64_t{0});
        QCOMPARE(rnr->naksReceived, uint64_t{0});

        // The live instance is listed for `smclab fabric list`.
        auto list = listDevices();
        QVERIFY(list.ok());
        bool found = false;
        for (const DeviceSummary& d : list.value()) found = found || d.info.name == info.name;
        QVERIFY(found);
        dev.value().reset();
        list = listDevices();
        found = false;
        for (const DeviceSummary& d : list.value()) found = found || d.info.name == info.name;
        QVERIFY(!found);
    }

    void regionsFollowTheSimRules() {
        auto dev = openDevice("sim");
        QVERIFY(dev.ok());
        auto pd = dev.value()->allocatePd();
        QVERIFY(pd.ok());
        std::vector<uint8_t> heap(4096);
        auto remote = pd.value()->registerRegion(heap.data(), heap.size(), Access::localWrite | Access::remoteWrite);
        QVERIFY(!remote.ok());
        QCOMPARE(remote.error().code, Errc::notSupported);
        auto local = pd.value()->registerRegion(heap.data(), heap.size(), Access::localWrite);
        QVERIFY(local.ok());
        QCOMPARE(local.value()->rkey(), 0u);
        QCOMPARE(local.value()->data(), heap.data());
        auto badAccess = pd.value()->allocateRegion(4096, Access::remoteWrite);
        QCOMPARE(badAccess.error().code, Errc::invalidArgument);
        auto rmb = pd.value()->allocateRegion(65536, Access::localWrite | Access::remoteWrite);
        QVERIFY(rmb.ok());
        QVERIFY(rmb.value()->rkey() != 0);
        QCOMPARE(rmb.value()->length(), uint64_t{65536});
        QCOMPARE(rmb.value()->address() % 4096, uint64_t{0});
        QCOMPARE(rmb.value()->data()[65535], uint8_t{0});

        // Receive buffers must be fabric memory on sim.
        auto cq = dev.value()->createCq(CqInit{8, nullptr, 0});
        QVERIFY(cq.ok());
        QCOMPARE(dev.value()->createCq(CqInit{0, nullptr, 0}).error().code, Errc::invalidArgument);
        QpInit init;
        init.sendCq = cq->get();
        init.recvCq = cq->get();
        init.caps = QpCaps{4, 4, 1, 1, 0};
        auto qp = pd.value()->createQp(init);
        QVERIFY(qp.ok());
        QpAttr attr;
        attr.state = QpState::init;
        attr.port = 1;
        attr.accessFlags = Access::localWrite;
        QVERIFY(qp.value()->modify(attr, kMaskResetToInit).ok());
        RecvWr wr;
        wr.numSge = 1;
        wr.sg[0] = Sge{reinterpret_cast<uint64_t>(heap.data()), 64, local.value()->lkey()};
        QCOMPARE(qp.value()->postRecv(wr).error().code, Errc::notSupported);
        init.caps.maxSendWr = 1u << 30;
        QCOMPARE(pd.value()->createQp(init).error().code, Errc::invalidArgument);
    }

    void timerTables() {
        QCOMPARE(rnrTimerMs(5), 0.06);  // SMC-R's min_rnr_timer
        QCOMPARE(rnrTimerMs(0), 655.36);
        QCOMPARE(rnrTimerMs(31), 491.52);
        QVERIFY(qAbs(ackTimeoutUs(15) - 134217.728) < 0.01);  // SMC-R's timeout 15: ~134 ms
        QCOMPARE(ackTimeoutUs(0), 0.0);
        QCOMPARE(mtuBytes(PathMtu::mtu1024), 1024u);
        QCOMPARE(std::string(wcStatusName(WcStatus::rnrRetryExcErr)), std::string("RNR retry counter exceeded"));
        QCOMPARE(formatMac(Mac{2, 0, 0, 0, 1, 2}), std::string("02:00:00:00:01:02"));
    }
};

QTEST_APPLESS_MAIN(TestFabricRegistry)
#include "test_fabric_registry.moc"
