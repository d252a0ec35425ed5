// SMCR_CAPTURE / SimControl::setCapture write the sim's SENDs and RDMA
// WRITEs as RoCEv2 frames; Wireshark's own dissectors (tshark) must decode
// the BTH opcodes, QPNs, PSNs, the RETH and the SMC CDC payload.
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include "fabric_pair.h"

using namespace fabrictest;

namespace {

QString runTshark(const QStringList& args) {
    QProcess tshark;
    tshark.start("tshark", args);
    if (!tshark.waitForFinished(30000)) return {};
    return QString::fromUtf8(tshark.readAllStandardOutput());
}

// A CDC message as SMC-R sends it (smc-protocol.md section 3): type 0xFE,
// length 44, sequence number, alert token, cursors.
void fillCdc(uint8_t* cdc, uint16_t seq) {
    std::memset(cdc, 0, 44);
    cdc[0] = 0xfe;
    cdc[1] = 44;
    cdc[2] = static_cast<uint8_t>(seq >> 8);
    cdc[3] = static_cast<uint8_t>(seq);
    cdc[7] = 0x2a;   // alert token 42
    cdc[15] = 0x40;  // producer cursor count 64
}

}  // namespace

class TestFabricCapture : public QObject {
    Q_OBJECT

private slots:
    void roceFramesDecode() {
        const std::string dir = "/dev/shm/smclab-captest-" + std::to_string(getpid());
        setenv("SMCR_SIM_DIR", dir.c_str(), 1);
        const std::string pcap = "/tmp/smclab-capture-" + std::to_string(getpid()) + ".pcap";
        ::unlink(pcap.c_str());

        // The child captures through the environment, the parent through the API.
        PeerProcess peer([&pcap](int ctl) {
            setenv("SMCR_CAPTURE", pcap.c_str(), 1);
            Side s;
            SideOptions o;
            PEER_CHECK(s.setup(o).ok());
            Endpoint remote;
            PEER_CHECK(sendValue(ctl, s.local()));
            PEER_CHECK(recvValue(ctl, &remote));
            PEER_CHECK(s.connect(remote).ok());
            PEER_CHECK(s.postRecvs(4).ok());
            PEER_CHECK(signal(ctl));
            WorkCompletion wc;
            PEER_CHECK(s.pollOne(*s.recvCq, &wc));
            uint8_t cdc[44];
            fillCdc(cdc, 2);
            PEER_CHECK(s.qp->postSend(s.sendWr(9, cdc, 44, SendFlags::signaled | SendFlags::solicited)).ok());
            PEER_CHECK(s.pollOne(*s.sendCq, &wc));
            PEER_CHECK(wc.status == WcStatus::success);
            return 0;
        });
        Side side;
        SideOptions o;
        QVERIFY(side.setup(o).ok());
        sim::SimControl* sim = sim::simControl(*side.dev);
        QVERIFY(sim != nullptr);
        QVERIFY(sim->setCapture(pcap).ok());
        Endpoint remote;
        QVERIFY(sendValue(peer.fd(), side.local()));
        QVERIFY(recvValue(peer.fd(), &remote));
        QVERIFY(side.connect(remote).ok());
        QVERIFY(side.postRecvs(4).ok());
        QVERIFY(waitSignal(peer.fd()));

        for (uint32_t i = 0; i < 3000; ++i) side.src->data()[i] = static_cast<uint8_t>(i);
        QVERIFY(side.qp->postSend(side.writeWr(1, remote, 0, 3000, SendFlags::none)).ok());
        uint8_t cdc[44];
        fillCdc(cdc, 1);
        QVERIFY(side.qp->postSend(side.sendWr(2, cdc, 44, SendFlags::signaled | SendFlags::solicited)).ok());
        WorkCompletion wc;
        QVERIFY(side.pollOne(*side.sendCq, &wc));
        QCOMPARE(wc.status, WcStatus::success);
        QVERIFY(side.pollOne(*side.recvCq, &wc));
        QCOMPARE(peer.wait(), 0);
        QVERIFY(sim->setCapture("").ok());

        // Fields: opcode, destination QP, PSN, rkey, DMA length, SMC message type.
        const QString fields =
            runTshark({"-r", QString::fromStdString(pcap), "-T", "fields", "-e", "infiniband.bth.opcode", "-e",
                       "infiniband.bth.destqp", "-e", "infiniband.bth.psn", "-e", "infiniband.reth.r_key", "-e",
                       "infiniband.reth.dmalen", "-e", "smc.llc_msg"});
        const QStringList lines = fields.split('\n', Qt::SkipEmptyParts);
        qInfo("%s", qPrintable(fields));
        QCOMPARE(lines.size(), 5);  // WRITE First/Middle/Last (MTU 1024), 2 SENDs
        auto col = [&](int line, int column) { return lines[line].split('\t').value(column); };
        const QString peerQp = QString("0x%1").arg(remote.qpn, 6, 16, QChar('0'));
        const QString ownQp = QString("0x%1").arg(side.qp->qpn(), 6, 16, QChar('0'));
        QCOMPARE(col(0, 0), QString("6"));  // RDMA WRITE First
        QCOMPARE(col(1, 0), QString("7"));  // Middle
        QCOMPARE(col(2, 0), QString("8"));  // Last
        QCOMPARE(col(3, 0), QString("4"));  // SEND Only
        for (int i = 0; i < 4; ++i) QCOMPARE(col(i, 1), peerQp);
        QCOMPARE(col(0, 2).toUInt(), side.psn);
        QCOMPARE(col(3, 2).toUInt(), (side.psn + 3) & kPsnMask);
        QCOMPARE(col(0, 3).toUInt(nullptr, 16), remote.rkey);
        QCOMPARE(col(0, 4), QString("3000"));
        QCOMPARE(col(3, 5), QString("0xfe"));
        QCOMPARE(col(4, 0), QString("4"));
        QCOMPARE(col(4, 1), ownQp);
        QCOMPARE(col(4, 2).toUInt(), remote.psn);

        const QString verbose = runTshark({"-r", QString::fromStdString(pcap), "-V", "-O", "infiniband,smc"});
        QVERIFY(verbose.contains("Reliable Connection (RC) - RDMA WRITE First"));
        QVERIFY(verbose.contains("Reliable Connection (RC) - SEND Only"));
        QVERIFY(verbose.contains("Solicited Event: True"));
        QVERIFY(verbose.contains("CDC Message"));
        QVERIFY(verbose.contains("Alert Token: 0x0000002a"));
        ::unlink(pcap.c_str());
        QVERIFY(system(("rm -rf '" + dir + "'").c_str()) == 0);
    }
};

int main(int argc, char** argv) {
    if (QStandardPaths::findExecutable("tshark").isEmpty()) {
        std::printf("SKIP: tshark is not installed (Debian package tshark)\n");
        return 77;
    }
    TestFabricCapture test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_fabric_capture.moc"
