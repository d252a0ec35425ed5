// Known LLC and CDC vectors (vectors.h, offsets from smc-protocol.md 2-3):
// fields decode as written, re-encoding gives the same 44 bytes, v2 lengths
// are checked (little-endian) and unknown types are malformed.
#include <smcr/wire/cdc.h>
#include <smcr/wire/describe.h>
#include <smcr/wire/llc.h>

#include <QTest>

#include "vectors.h"

using namespace smcr::wire;

namespace {

template <typename T>
T decodeAs(const std::vector<uint8_t>& bytes) {
    auto msg = decodeLlc(bytes);
    if (!msg) qFatal("decode failed: %s", msg.error().toString().c_str());
    if (!std::holds_alternative<T>(*msg)) qFatal("decoded to the wrong LLC type");
    return std::get<T>(*msg);
}

std::vector<uint8_t> toVector(const LlcBytes& bytes) {
    return {bytes.begin(), bytes.end()};
}

}  // namespace

class TestWireLlcCdc : public QObject {
    Q_OBJECT
private slots:
    void confirmLink() {
        const auto bytes = wirevec::hex(wirevec::kLlcConfirmLink);
        const auto msg = decodeAs<LlcConfirmLink>(bytes);
        QVERIFY(!msg.response);
        QVERIFY(msg.noRmbeEyecatcher);
        QCOMPARE(msg.senderMac[5], uint8_t{2});
        QCOMPARE(msg.senderGid[0], uint8_t{0xfe});
        QCOMPARE(msg.qpn, uint32_t{0x123});
        QCOMPARE(msg.linkNumber, uint8_t{1});
        QCOMPARE(msg.linkUid, uint32_t{0x0a01});
        QCOMPARE(msg.maxLinks, uint8_t{2});
        QCOMPARE(toVector(encode(msg)), bytes);
    }

    void addLinkReject() {
        const auto bytes = wirevec::hex(wirevec::kLlcAddLinkReject);
        const auto msg = decodeAs<LlcAddLink>(bytes);
        QVERIFY(msg.response);
        QVERIFY(msg.rejected);
        QCOMPARE(msg.rejectReason, kAddLinkRejectNoAltPath);
        QCOMPARE(msg.qpn, uint32_t{0x321});
        QCOMPARE(msg.linkNumber, uint8_t{2});
        QCOMPARE(msg.qpMtu, IbMtu::mtu1024);
        QCOMPARE(msg.initialPsn, uint32_t{0xbeef});
        QCOMPARE(msg.initCredits, uint8_t{0});
        QCOMPARE(toVector(encode(msg)), bytes);
    }

    void addLinkCont() {
        const auto bytes = wirevec::hex(wirevec::kLlcAddLinkCont);
        const auto msg = decodeAs<LlcAddLinkCont>(bytes);
        QCOMPARE(msg.linkNumber, uint8_t{2});
        QCOMPARE(msg.numRkeys, uint8_t{1});
        QCOMPARE(msg.rkeys[0].rkeyCurrent, uint32_t{0x1111});
        QCOMPARE(msg.rkeys[0].rkeyNew, uint32_t{0x2222});
        QCOMPARE(msg.rkeys[1].vaddrNew, uint64_t{0x200000});
        QCOMPARE(toVector(encode(msg)), bytes);
    }

    void deleteLink() {
        const auto bytes = wirevec::hex(wirevec::kLlcDeleteLink);
        const auto msg = decodeAs<LlcDeleteLink>(bytes);
        QVERIFY(msg.response && msg.allLinks && msg.orderly);
        QCOMPARE(msg.linkNumber, uint8_t{1});
        QCOMPARE(msg.reason, static_cast<uint32_t>(DeleteLinkReason::operatorTerm));
        QCOMPARE(QString(deleteLinkReasonName(msg.reason)), QString("OPERATOR_TERM"));
        QCOMPARE(toVector(encode(msg)), bytes);
    }

    void confirmRkey() {
        const auto bytes = wirevec::hex(wirevec::kLlcConfirmRkey);
        const auto msg = decodeAs<LlcConfirmRkey>(bytes);
        QVERIFY(msg.response);
        QVERIFY(!msg.negative);
        QCOMPARE(msg.entries[0].linkId, uint8_t{1});
        QCOMPARE(msg.entries[0].rkey, uint32_t{0x5555});
        QCOMPARE(msg.entries[0].vaddr, uint64_t{0x00007f0000001000});
        QCOMPARE(msg.entries[1].linkId, uint8_t{2});
        QCOMPARE(msg.entries[1].rkey, uint32_t{0x6666});
        QCOMPARE(toVector(encode(msg)), bytes);
    }

    void confirmRkeyCont() {
        const auto bytes = wirevec::hex(wirevec::kLlcConfirmRkeyCont);
        const auto msg = decodeAs<LlcConfirmRkeyCont>(bytes);
        QCOMPARE(msg.numRkeys, uint8_t{1});
        QCOMPARE(msg.entries[0].rkey, uint32_t{0x7777});
        QCOMPARE(toVector(encode(msg)), bytes);
    }

    void testLink() {
        const auto bytes = wirevec::hex(wirevec::kLlcTestLink);
        const auto msg = decodeAs<LlcTestLink>(bytes);
        QVERIFY(!msg.response);
        for (uint8_t i = 0; i < 16; ++i) QCOMPARE(msg.userData[i], i);
        QCOMPARE(toVector(encode(msg)), bytes);
    }

    void deleteRkey() {
        const auto bytes = wirevec::hex(wirevec::kLlcDeleteRkey);
        const auto msg = decodeAs<LlcDeleteRkey>(bytes);
        QVERIFY(msg.response);
        QCOMPARE(msg.numRkeys, uint8_t{2});
        QCOMPARE(msg.errorMask, uint8_t{0x40});
        QCOMPARE(msg.rkeys[1], uint32_t{0x2222});
        QCOMPARE(toVector(encode(msg)), bytes);
    }

    void announceCreditsExperimental() {
        const auto bytes = wirevec::hex(wirevec::kLlcAnnounceCredits);
        const auto msg = decodeAs<LlcAnnounceCredits>(bytes);
        QVERIFY(msg.response);
        QCOMPARE(msg.credits, uint8_t{16});
        QCOMPARE(toVector(encode(msg)), bytes);
        QCOMPARE(llcTypeOf(LlcMessage{msg}), LlcType::announceCredits);
        const Description d = describe(LlcMessage{msg});
        QVERIFY(d.title.find("experimental") != std::string::npos);
    }

    void addLinkInitCreditsExperimental() {
        auto bytes = wirevec::hex(wirevec::kLlcAddLinkReject);
        bytes[36] = 32;  // seed 004: ADD_LINK byte 36 = init credits
        const auto msg = decodeAs<LlcAddLink>(bytes);
        QCOMPARE(msg.initCredits, uint8_t{32});
        QCOMPARE(toVector(encode(msg)), bytes);
    }

    // A v2 type's length is little-endian (the x86 kernel's host order) and
    // must match the bytes; a wrong length is malformed, never misread as v1.
    // REQ_ADD_LINK_V2 is recognised and refused as not supported.
    void v2LengthRules() {
        for (uint8_t type : {0x21, 0x22, 0x24, 0x25, 0x26, 0x27, 0x29}) {
            std::vector<uint8_t> bytes(120, 0);
            bytes[0] = type;
            bytes[1] = 0x78;  // 16-bit length 120, little-endian
            bytes[2] = 0x00;
            bytes[3] = kLlcFlagResponse;  // a response: not even ADD_LINK may be longer than 44
            auto header = peekLlcHeader(bytes);
            QVERIFY(header.ok());
            QVERIFY(header->v2);
            QCOMPARE(header->lengthBytes, uint16_t{120});
            auto msg = decodeLlc(bytes);
            QVERIFY(!msg.ok());
            QVERIFY2(msg.error().message.find(type == 0x25 ? llcTypeName(type) : "length") != std::string::npos,
                     msg.error().message.c_str());
            QCOMPARE(msg.error().code, type == 0x25 ? smcr::Errc::notSupported : smcr::Errc::malformed);
        }
        std::vector<uint8_t> bigEndian(44, 0);
        bigEndian[0] = 0x27;
        bigEndian[2] = 0x2c;  // 44 big-endian reads as 11264 little-endian
        auto msg = decodeLlc(bigEndian);
        QVERIFY(!msg.ok());
        QVERIFY2(msg.error().message.find("11264") != std::string::npos, msg.error().message.c_str());
    }

    void unknownTypes() {
        for (int type = 0; type < 256; ++type) {
            if (llcTypeName(static_cast<uint8_t>(type)) != nullptr) continue;
            auto bytes = wirevec::hex(wirevec::kLlcTestLink);
            bytes[0] = static_cast<uint8_t>(type);
            auto msg = decodeLlc(bytes);
            QVERIFY(!msg.ok());
            QCOMPARE(msg.error().code, smcr::Errc::malformed);
            QVERIFY(msg.error().message.find("llc.type") != std::string::npos);
        }
        auto cdcAsLlc = decodeLlc(wirevec::hex(wirevec::kCdc));
        QVERIFY(!cdcAsLlc.ok());
        QVERIFY(cdcAsLlc.error().message.find("CDC") != std::string::npos);
    }

    void cdcFlagsAndWrap() {
        const auto bytes = wirevec::hex(wirevec::kCdc);
        auto decoded = decodeCdc(bytes);
        QVERIFY2(decoded.ok(), decoded.ok() ? "" : decoded.error().message.c_str());
        const CdcMessage& msg = *decoded;
        QCOMPARE(msg.seqno, uint16_t{258});
        QCOMPARE(msg.alertToken, uint32_t{5});
        QCOMPARE(msg.producer.wrap, uint16_t{3});
        QCOMPARE(msg.producer.count, uint32_t{4096});
        QCOMPARE(msg.consumer.wrap, uint16_t{2});
        QCOMPARE(msg.consumer.count, uint32_t{0x1f000});
        QVERIFY(msg.prodFlags.writeBlocked);
        QVERIFY(!msg.prodFlags.urgentPending);
        QVERIFY(msg.prodFlags.urgentPresent);
        QVERIFY(!msg.prodFlags.consumerUpdateRequested);
        QVERIFY(!msg.prodFlags.failoverValidation);
        QVERIFY(msg.connFlags.peerDoneWriting);
        QVERIFY(!msg.connFlags.peerConnClosed);
        QVERIFY(!msg.connFlags.peerAbnormalClose);
        QCOMPARE(msg.credits, uint8_t{0});
        const CdcBytes again = encode(msg);
        QCOMPARE(std::vector<uint8_t>(again.begin(), again.end()), bytes);
    }

    void cdcEveryFlagBit() {
        for (int bit = 0; bit < 8; ++bit) {
            CdcMessage msg;
            msg.prodFlags.writeBlocked = bit == 0;
            msg.prodFlags.urgentPending = bit == 1;
            msg.prodFlags.urgentPresent = bit == 2;
            msg.prodFlags.consumerUpdateRequested = bit == 3;
            msg.prodFlags.failoverValidation = bit == 4;
            msg.connFlags.peerDoneWriting = bit == 5;
            msg.connFlags.peerConnClosed = bit == 6;
            msg.connFlags.peerAbnormalClose = bit == 7;
            const CdcBytes bytes = encode(msg);
            const uint8_t expected24 = bit < 5 ? static_cast<uint8_t>(0x80 >> bit) : 0;
            const uint8_t expected25 = bit >= 5 ? static_cast<uint8_t>(0x80 >> (bit - 5)) : 0;
            QCOMPARE(bytes[24], expected24);
            QCOMPARE(bytes[25], expected25);
            QCOMPARE(*decodeCdc(bytes), msg);
        }
    }

    void cdcCreditsExperimental() {
        auto bytes = wirevec::hex(wirevec::kCdc);
        bytes[26] = 7;  // seed 004: CDC byte 26 carries credits
        auto msg = decodeCdc(bytes);
        QVERIFY(msg.ok());
        QCOMPARE(msg->credits, uint8_t{7});
        const CdcBytes again = encode(*msg);
        QCOMPARE(again[26], uint8_t{7});
    }

    void cdcReservedIsIgnoredAndZeroOnEncode() {
        auto bytes = wirevec::hex(wirevec::kCdc);
        bytes[8] = 0xff;   // producer cursor reserved
        bytes[43] = 0xff;  // trailing reserved
        auto msg = decodeCdc(bytes);
        QVERIFY(msg.ok());
        const CdcBytes again = encode(*msg);
        QCOMPARE(again[8], uint8_t{0});
        QCOMPARE(again[43], uint8_t{0});
    }

    void describeCdc() {
        const Description d = describe(*decodeCdc(wirevec::hex(wirevec::kCdc)));
        const std::string text = formatDescription(d);
        QVERIFY2(text.find("write_blocked: yes") != std::string::npos, text.c_str());
        QVERIFY2(text.find("wrap: 3") != std::string::npos, text.c_str());
        QVERIFY2(text.find("token: 0x00000005") != std::string::npos, text.c_str());
    }
};

QTEST_APPLESS_MAIN(TestWireLlcCdc)
#include "test_wire_llc_cdc.moc"
