// Cross-check with an independent decoder: messages produced by our
// encoders are wrapped in a capture (CLC as TCP payload, LLC/CDC as RoCEv2
// SEND payload behind a 12-byte BTH) and decoded by Wireshark's "smc"
// dissector; its field values must match ours. Skips without tshark.
#include <smcr/wire/cdc.h>
#include <smcr/wire/clc.h>
#include <smcr/wire/llc.h>

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "vectors.h"

using namespace smcr::wire;

namespace {

QByteArray textLine(const std::vector<uint8_t>& bytes, const char* prefix = "") {
    QByteArray line = "0000 ";
    line += prefix;
    for (uint8_t b : bytes) line += QByteArray::number(b, 16).rightJustified(2, '0') + ' ';
    return line;
}

std::vector<uint8_t> clcBytes(const char* vector) {
    auto msg = decodeClc(wirevec::hex(vector));
    if (!msg) qFatal("vector does not decode: %s", msg.error().message.c_str());
    return encodeClc(*msg);
}

std::vector<uint8_t> llcBytes(const char* vector) {
    auto msg = decodeLlc(wirevec::hex(vector));
    if (!msg) qFatal("vector does not decode: %s", msg.error().message.c_str());
    const LlcBytes bytes = encodeLlc(*msg);
    return {bytes.begin(), bytes.end()};
}

// Runs text2pcap + tshark on the hex lines; returns tshark's verbose text.
QString dissect(const QByteArray& lines, const QStringList& text2pcapArgs) {
    QTemporaryDir dir;
    const QString txt = dir.filePath("in.txt");
    const QString pcap = dir.filePath("in.pcap");
    QFile file(txt);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(lines);
    file.close();
    QProcess text2pcap;
    text2pcap.start("text2pcap", QStringList{"-q"} + text2pcapArgs + QStringList{txt, pcap});
    if (!text2pcap.waitForFinished(30000) || text2pcap.exitCode() != 0) return {};
    QProcess tshark;
    tshark.start("tshark", {"-r", pcap, "-O", "smc"});
    if (!tshark.waitForFinished(60000)) return {};
    return QString::fromUtf8(tshark.readAllStandardOutput());
}

}  // namespace

class TestWireTshark : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (QStandardPaths::findExecutable("tshark").isEmpty() ||
            QStandardPaths::findExecutable("text2pcap").isEmpty()) {
            QSKIP("tshark/text2pcap not installed");
        }
    }

    void clcMessages() {
        QByteArray lines;
        for (const char* v : {wirevec::kProposalV1, wirevec::kProposalV2, wirevec::kAcceptV1,
                              wirevec::kAcceptV2FirstContact, wirevec::kConfirmV2GidList, wirevec::kDeclineV2}) {
            lines += textLine(clcBytes(v)) + '\n';
        }
        const QString out = dissect(lines, {"-T", "40000,12345"});
        QVERIFY2(!out.isEmpty(), "tshark produced no output");
        const char* expected[] = {
            "CLC Message: Proposal (1)",
            "SMC Length: 92",
            "Client Preferred GID: fe80::200:ff:fe00:1",
            "SMCv1 IP Subnet Extension Offset: 0x0028",
            "Outgoing Interface Subnet Mask: 192.168.1.0",
            "Outgoing Interface Subnet Mask Number of Significant Bits: 24",
            "SMC Length: 164",
            "SMCv2 Extension Offset: 0x0024",
            "EID Count: 1",
            "SMC Version Release Number: 1",
            "RoCEv2 GID IPv4 Address: 192.168.1.10",
            "EID: SMCLAB-UEID",
            "CLC Message: Accept (2)",
            "First Contact: True",
            "Server QP Number: 0x000123",
            "Server RMB Rkey: 0x00001234",
            "Server RMB Element Alert Token: 0x00000005",
            "Server RMB Buffers Size (Compressed Notation): 3 (Size: 128k)",
            "QP MTU Value (enumerated value): 3 (MTU: 1024)",
            "Server's RMB Virtual Address: 0x00007f0012345000",
            "Initial PSN: 0x00abcd",
            "Negotiated EID: SMCLAB-UEID",
            "V2 LG Type: V2_DIRECT (1)",
            "OS Type: Linux (2)",
            "Peer Host Name: host-a",
            "CLC Message: Confirm (3)",
            "GID List Entry Count: 2",
            "RoCEv2 GID List Entry: ::ffff:192.168.2.10",
            "CLC Message: Decline (4)",
            "Out of Sync: True",
            "Peer Diagnosis Information: 0x04000000",
            "Peer Diagnosis Information: 0x03030008",
        };
        for (const char* line : expected) QVERIFY2(out.contains(line), qPrintable(QString(line) + "\n---\n" + out));
    }

    void llcAndCdcMessages() {
        // RoCEv2: UDP 4791, BTH opcode 0x04 (RC SEND only), then the 44 bytes and a 4-byte ICRC.
        const char* bth = "04 40 ff ff 00 00 00 11 00 00 00 01 ";
        QByteArray lines;
        for (const char* v : {wirevec::kLlcConfirmLink, wirevec::kLlcAddLinkReject, wirevec::kLlcDeleteLink,
                              wirevec::kLlcConfirmRkey, wirevec::kLlcDeleteRkey}) {
            lines += textLine(llcBytes(v), bth) + "00 00 00 00\n";
        }
        const CdcBytes cdc = encode(*decodeCdc(wirevec::hex(wirevec::kCdc)));
        lines += textLine({cdc.begin(), cdc.end()}, bth) + "00 00 00 00\n";
        const QString out = dissect(lines, {"-u", "40000,4791"});
        QVERIFY2(!out.isEmpty(), "tshark produced no output");
        const char* expected[] = {
            "LLC Message: Confirm Link (0x01)",
            "Sender QP Number: 0x000123",
            "Sender Link User ID: 0x00000a01",
            "Max Links: 0x02",
            "LLC Message: Add Link (0x02) (Resp)",
            "Add Link Rejected: True",
            "QP MTU Value (enumerated value): 3 (MTU: 1024)",
            "Initial PSN: 0x00beef",
            "Terminate All Links In The Link Group: True",
            "Terminate Links Orderly: True",
            "Reason Code: 0x00020000",
            "Number of other QP: 1",
            "New Rkey for this link: 0x00006666",
            "Rkey Count: 2",
            "Error Mask: 0x40",
            "RMB Rkey to be deleted: 0x00002222",
            "LLC Message: CDC Message (0xfe)",
            "Sequence Number: 0x0102",
            "Alert Token: 0x00000005",
            "Producer window wrap sequence number: 0x0003",
            "Peer Producer Cursor: 0x00001000",
            "Consumer window wrap sequence number: 0x0002",
            "Peer Consumer Cursor: 0x0001f000",
            "Write Blocked: True",
            "Urgent Data Present: True",
            "Peer Sending Done: True",
        };
        for (const char* line : expected) QVERIFY2(out.contains(line), qPrintable(QString(line) + "\n---\n" + out));
    }
};

QTEST_GUILESS_MAIN(TestWireTshark)
#include "test_wire_tshark.moc"
