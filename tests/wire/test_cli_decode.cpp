// Runs the built `smclab decode` on known vectors (vectors.h) and checks the
// analyser output, and that malformed input prints the decoder's error and
// exits non-zero.
#include <QProcess>
#include <QTest>

#include "kernel_vectors.h"
#include "vectors.h"

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

QString program() {
    return qEnvironmentVariable("SMCLAB_BIN_DIR") + "/smclab";
}

Run runDecode(const QStringList& args, const QByteArray& input = {}) {
    QProcess process;
    process.start(program(), QStringList{"decode"} + args);
    if (!process.waitForStarted(5000)) return {};
    if (!input.isEmpty()) process.write(input);
    process.closeWriteChannel();
    process.waitForFinished(10000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
}

QString hexArg(const char* vector) {
    return QString::fromLatin1(vector);
}

}  // namespace

class TestCliDecode : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(QFile::exists(program()), "smclab is not built"); }

    void proposalV1() {
        const Run r = runDecode({hexArg(wirevec::kProposalV1)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("SMC-R CLC Proposal (v1, 92 bytes)\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  typev1: 0 (SMC-R)\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  iparea_offset: 40\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("    outgoing_subnet: 192.168.1.0\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("    prefix_len: 24\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  mac: 02:00:00:00:00:01\n"), qPrintable(r.out));
    }

    void acceptFromStdinWithColons() {
        const auto bytes = wirevec::hex(wirevec::kAcceptV1);
        QByteArray text;
        for (uint8_t b : bytes) text += QByteArray::number(b, 16).rightJustified(2, '0') + ":";
        const Run r = runDecode({}, text + "\n");
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("SMC-R CLC Accept (v1, 68 bytes)\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  first_contact: yes\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  rmbe_size: 3 (128 KiB)\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  qp_mtu: 3 (1024)\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  rmbe_alert_token: 0x00000005\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  psn: 0x00abcd (43981)\n"), qPrintable(r.out));
    }

    // The kernel's own v2 messages: the Proposal without a v1 part, and the
    // 88-byte ADD_LINK_V2 under its v2 name with its extension.
    void kernelV2Messages() {
        Run r = runDecode({hexArg(kernelvec::kProposalV2Only)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("SMC-R CLC Proposal (v2, 156 bytes)\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("10.77.0.1"), qPrintable(r.out));
        QVERIFY2(r.out.contains("SMCLAB-VM"), qPrintable(r.out));
        r = runDecode({"--kind", "llc", hexArg(kernelvec::kLlcAddLinkV2Request)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("SMC-R LLC ADD_LINK_V2 request (0x22, 88 bytes)\n"), qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("  length: 88\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("rmb_key_new: 0x000005fe"), qPrintable(r.out));
    }

    void cdc() {
        const Run r = runDecode({"--kind", "cdc", hexArg(wirevec::kCdc)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("SMC-R CDC (0xfe, 44 bytes)\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  seqno: 258\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("    write_blocked: yes\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("    peer_done_writing: yes\n"), qPrintable(r.out));
    }

    void confirmLink() {
        const Run r = runDecode({hexArg(wirevec::kLlcConfirmLink)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("SMC-R LLC CONFIRM_LINK request (0x01, 44 bytes)\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  sender_qp_num: 0x000123 (291)\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  link_num: 1\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  no_rmbe_eyecatcher: yes\n"), qPrintable(r.out));
    }

    void declineNamesTheReason() {
        const Run r = runDecode({hexArg(wirevec::kDeclineV2)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("  peer_diagnosis: SYNCERR (0x04000000)\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  out_of_sync: yes\n"), qPrintable(r.out));
    }

    void severalMessagesInARow() {
        const Run r = runDecode({hexArg(wirevec::kLlcTestLink), hexArg(wirevec::kCdc), hexArg(wirevec::kDeclineV1)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("SMC-R LLC TEST_LINK request"));
        QVERIFY(r.out.contains("SMC-R CDC"));
        QVERIFY(r.out.contains("SMC-R CLC Decline (v1, 28 bytes)"));
    }

    void truncatedIsRejected() {
        const auto bytes = wirevec::hex(wirevec::kAcceptV1);
        QString text;
        for (size_t i = 0; i < 50; ++i) text += QString::asprintf("%02x", bytes[i]);
        const Run r = runDecode({text});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("malformed: clc.accept.length: header says 68 bytes, have 50"), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());

        const Run llc = runDecode({"01 2c 00 03 02 00"});
        QCOMPARE(llc.exitCode, 1);
        QVERIFY2(llc.err.contains("llc.confirm_link"), qPrintable(llc.err));
    }

    void usageErrors() {
        QCOMPARE(runDecode({"--kind", "xyz", "00"}).exitCode, 2);
        QCOMPARE(runDecode({"zz"}).exitCode, 2);
        QCOMPARE(runDecode({"abc"}).exitCode, 2);
        const Run help = runDecode({"--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains("usage: smclab decode"));
    }
};

QTEST_GUILESS_MAIN(TestCliDecode)
#include "test_cli_decode.moc"
