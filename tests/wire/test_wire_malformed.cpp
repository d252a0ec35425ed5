// Malformed input never decodes: every known vector truncated at every
// length, flipped eyecatchers and trailers, wrong length fields, reserved
// RMBE size codes, unknown types, out-of-range counts. Each yields
// Errc::malformed (or notSupported for SMC-D / LLC v2) naming the field.
#include <smcr/wire/cdc.h>
#include <smcr/wire/clc.h>
#include <smcr/wire/llc.h>

#include <QTest>

#include "vectors.h"

using namespace smcr::wire;

namespace {

const char* const kClcVectors[] = {
    wirevec::kProposalV1,       wirevec::kProposalV2, wirevec::kAcceptV1, wirevec::kAcceptV2FirstContact,
    wirevec::kConfirmV2GidList, wirevec::kDeclineV1,  wirevec::kDeclineV2};
const char* const kLlcVectors[] = {wirevec::kLlcConfirmLink, wirevec::kLlcAddLinkReject, wirevec::kLlcAddLinkCont,
                                   wirevec::kLlcDeleteLink,  wirevec::kLlcConfirmRkey,   wirevec::kLlcConfirmRkeyCont,
                                   wirevec::kLlcTestLink,    wirevec::kLlcDeleteRkey,    wirevec::kLlcAnnounceCredits};

// Sets the CLC length field (offset 5) and moves the trailer to the new end.
std::vector<uint8_t> withLength(std::vector<uint8_t> bytes, size_t length) {
    bytes.resize(length - 4);
    bytes.insert(bytes.end(), kEyecatcherSmcr.begin(), kEyecatcherSmcr.end());
    bytes[5] = static_cast<uint8_t>(length >> 8);
    bytes[6] = static_cast<uint8_t>(length);
    return bytes;
}

// Expects a malformed error whose message contains `field`.
void expectMalformed(const smcr::Result<ClcMessage>& result, const char* field) {
    QVERIFY2(!result.ok(), field);
    QCOMPARE(result.error().code, smcr::Errc::malformed);
    QVERIFY2(result.error().message.find(field) != std::string::npos, result.error().message.c_str());
}

}  // namespace

class TestWireMalformed : public QObject {
    Q_OBJECT
private slots:
    void clcTruncatedAtEveryLength() {
        for (const char* vector : kClcVectors) {
            const auto bytes = wirevec::hex(vector);
            QVERIFY(decodeClc(bytes).ok());
            for (size_t n = 0; n < bytes.size(); ++n) {
                auto result = decodeClc(std::span(bytes).first(n));
                QVERIFY(!result.ok());
                QCOMPARE(result.error().code, smcr::Errc::malformed);
                QVERIFY2(result.error().message.rfind("clc.", 0) == 0, result.error().message.c_str());
            }
        }
    }

    void clcTruncatedWithConsistentLengthField() {
        // Shortened messages whose length field and trailer agree: only the
        // lengths that really are complete layouts decode, and they re-encode exactly.
        for (const char* vector : kClcVectors) {
            const auto full = wirevec::hex(vector);
            for (size_t n = 12; n < full.size(); ++n) {
                const auto bytes = withLength(full, n);
                auto result = decodeClc(bytes);
                if (result.ok()) {
                    QCOMPARE(encodeClc(*result), bytes);
                    QVERIFY2(n == 108 || n == 160, "only the v2 Accept/Confirm without FCE/GID list is valid");
                } else {
                    QCOMPARE(result.error().code, smcr::Errc::malformed);
                }
            }
        }
    }

    void clcTruncationMessageNamesField() {
        const auto bytes = wirevec::hex(wirevec::kAcceptV1);
        auto result = decodeClc(std::span(bytes).first(50));
        QVERIFY(!result.ok());
        QCOMPARE(QString::fromStdString(result.error().message),
                 QString("clc.accept.length: header says 68 bytes, have 50"));
    }

    void clcBadEyecatcherAndTrailer() {
        for (const char* vector : kClcVectors) {
            const auto good = wirevec::hex(vector);
            for (size_t i = 0; i < 4; ++i) {
                auto bytes = good;
                bytes[i] ^= 0x01;
                expectMalformed(decodeClc(bytes), "clc.header.eyecatcher");
            }
            if (good[4] == 4) continue;  // Decline: trailer not checked
            for (size_t i = good.size() - 4; i < good.size(); ++i) {
                auto bytes = good;
                bytes[i] ^= 0x01;
                expectMalformed(decodeClc(bytes), ".trailer");
            }
        }
        // SMCD header with an SMCR trailer.
        auto bytes = wirevec::hex(wirevec::kProposalV1);
        bytes[3] = 0xC4;
        expectMalformed(decodeClc(bytes), "clc.proposal.trailer");
    }

    void clcWrongLengthField() {
        for (const char* vector : kClcVectors) {
            auto bytes = wirevec::hex(vector);
            const size_t length = bytes.size();
            for (size_t wrong : {length - 1, length + 1, size_t{0}, size_t{11}, size_t{2000}}) {
                bytes[5] = static_cast<uint8_t>(wrong >> 8);
                bytes[6] = static_cast<uint8_t>(wrong);
                auto result = decodeClc(bytes);
                QVERIFY(!result.ok());
                QCOMPARE(result.error().code, smcr::Errc::malformed);
                QVERIFY2(result.error().message.find("length") != std::string::npos, result.error().message.c_str());
            }
        }
        // Exact-length rules (section 1.2) with self-consistent framing.
        expectMalformed(decodeClc(withLength(wirevec::hex(wirevec::kAcceptV1), 72)), "clc.accept.length");
        expectMalformed(decodeClc(withLength(wirevec::hex(wirevec::kDeclineV1), 44)), "clc.decline.length");
        expectMalformed(decodeClc(withLength(wirevec::hex(wirevec::kDeclineV2), 28)), "clc.decline.length");
        expectMalformed(decodeClc(withLength(wirevec::hex(wirevec::kProposalV1), 96)), "clc.proposal.length");
        expectMalformed(decodeClc(withLength(wirevec::hex(wirevec::kAcceptV2FirstContact), 104)), "clc.accept.length");
        // Trailing bytes after a GID list.
        auto confirm = wirevec::hex(wirevec::kConfirmV2GidList);
        expectMalformed(decodeClc(withLength(confirm, confirm.size() + 4)), "clc.confirm.");
    }

    void clcReservedRmbeSizeCodes() {
        for (uint8_t code = 6; code <= 15; ++code) {
            for (const char* vector :
                 {wirevec::kAcceptV1, wirevec::kAcceptV2FirstContact, wirevec::kConfirmV2GidList}) {
                auto bytes = wirevec::hex(vector);
                bytes[50] = static_cast<uint8_t>(code << 4 | (bytes[50] & 0x0F));
                auto result = decodeClc(bytes);
                expectMalformed(result, ".rmbe_size");
                QVERIFY(result.error().message.find("reserved code " + std::to_string(code)) != std::string::npos);
            }
        }
    }

    void clcUnknownTypesAndVersions() {
        for (int type : {0, 5, 6, 0x7f, 0xff}) {
            auto bytes = wirevec::hex(wirevec::kAcceptV1);
            bytes[4] = static_cast<uint8_t>(type);
            expectMalformed(decodeClc(bytes), "clc.header.type");
        }
        auto bytes = wirevec::hex(wirevec::kAcceptV1);
        bytes[7] = 0x08;  // version 0
        expectMalformed(decodeClc(bytes), "clc.header.version");
    }

    void clcProposalBadCountsAndOffsets() {
        auto v1 = wirevec::hex(wirevec::kProposalV1);
        v1[87] = 9;  // 9 IPv6 prefixes, more than the 8 allowed
        expectMalformed(decodeClc(v1), "ipv6_prefix_count");
        v1 = wirevec::hex(wirevec::kProposalV1);
        v1[84] = 33;
        expectMalformed(decodeClc(v1), "ipv4_prefix_length");
        v1 = wirevec::hex(wirevec::kProposalV1);
        v1[39] = 60;  // ip area beyond the message
        expectMalformed(decodeClc(v1), "clc.proposal.");
        v1 = wirevec::hex(wirevec::kProposalV1);
        v1[7] = 0x1a;  // v1 with typev1 none
        expectMalformed(decodeClc(v1), "clc.proposal.typev1");

        auto v2 = wirevec::hex(wirevec::kProposalV2);
        v2[88] = 9;  // 9 UEIDs
        expectMalformed(decodeClc(v2), "v2_ext.eid_count");
        v2 = wirevec::hex(wirevec::kProposalV2);
        v2[88] = 2;  // 2 UEIDs, only one present
        expectMalformed(decodeClc(v2), "v2_ext.ueid");
        v2 = wirevec::hex(wirevec::kProposalV2);
        v2[51] = 20;  // v2 extension at 72: inside the SMC-D area
        expectMalformed(decodeClc(v2), "v2_ext_offset");
        v2 = wirevec::hex(wirevec::kProposalV2);
        v2[39] = 20;  // IP area at 60: inside the SMC-D/v2 area
        expectMalformed(decodeClc(v2), "ip_area_offset");
        v2 = wirevec::hex(wirevec::kProposalV2);
        v2[7] = 0x2a;  // v2 offering nothing
        expectMalformed(decodeClc(v2), "typev2");
    }

    void clcAcceptConfirmSpecifics() {
        auto bytes = wirevec::hex(wirevec::kAcceptV1);
        bytes[7] = 0x13;  // typev1 both: not a chosen type
        expectMalformed(decodeClc(bytes), "clc.accept.typev1");
        bytes = wirevec::hex(wirevec::kAcceptV1);
        bytes[7] = 0x11;  // typev1 SMC-D
        auto smcd = decodeClc(bytes);
        QVERIFY(!smcd.ok());
        QCOMPARE(smcd.error().code, smcr::Errc::notSupported);
        bytes = wirevec::hex(wirevec::kConfirmV2GidList);
        bytes[156] = 3;  // 3 GIDs: more than 2
        expectMalformed(decodeClc(bytes), "gid_list.count");
        bytes = wirevec::hex(wirevec::kAcceptV2FirstContact);
        expectMalformed(decodeClc(withLength(bytes, 130)), "clc.accept.fce");
    }

    void llcTruncatedAtEveryLength() {
        for (const char* vector : kLlcVectors) {
            const auto bytes = wirevec::hex(vector);
            QVERIFY(decodeLlc(bytes).ok());
            for (size_t n = 0; n < bytes.size(); ++n) {
                auto result = decodeLlc(std::span(bytes).first(n));
                QVERIFY(!result.ok());
                QCOMPARE(result.error().code, smcr::Errc::malformed);
                QVERIFY2(result.error().message.rfind("llc.", 0) == 0, result.error().message.c_str());
            }
            auto longer = bytes;
            longer.push_back(0);
            QVERIFY(!decodeLlc(longer).ok());
        }
    }

    void llcWrongLengthByte() {
        for (const char* vector : kLlcVectors) {
            auto bytes = wirevec::hex(vector);
            for (uint8_t length : {0, 43, 45, 48, 255}) {
                bytes[1] = length;
                auto result = decodeLlc(bytes);
                QVERIFY(!result.ok());
                QCOMPARE(result.error().code, smcr::Errc::malformed);
                QVERIFY2(result.error().message.find(".length") != std::string::npos, result.error().message.c_str());
            }
        }
    }

    void llcDeleteRkeyCount() {
        auto bytes = wirevec::hex(wirevec::kLlcDeleteRkey);
        bytes[4] = 9;
        auto result = decodeLlc(bytes);
        QVERIFY(!result.ok());
        QVERIFY2(result.error().message.find("llc.delete_rkey.num_rkeys") != std::string::npos,
                 result.error().message.c_str());
    }

    void llcV2TooShortForHeader() {
        const std::vector<uint8_t> bytes = {0x21, 0x00};
        auto result = decodeLlc(bytes);
        QVERIFY(!result.ok());
        QCOMPARE(result.error().code, smcr::Errc::malformed);
    }

    void cdcMalformed() {
        const auto good = wirevec::hex(wirevec::kCdc);
        for (size_t n = 0; n < good.size(); ++n) {
            auto result = decodeCdc(std::span(good).first(n));
            QVERIFY(!result.ok());
            QCOMPARE(result.error().code, smcr::Errc::malformed);
        }
        auto longer = good;
        longer.push_back(0);
        QVERIFY(!decodeCdc(longer).ok());
        auto bytes = good;
        bytes[0] = 0x07;
        auto wrongType = decodeCdc(bytes);
        QVERIFY(!wrongType.ok());
        QVERIFY(wrongType.error().message.find("cdc.type") != std::string::npos);
        bytes = good;
        bytes[1] = 48;
        auto wrongLength = decodeCdc(bytes);
        QVERIFY(!wrongLength.ok());
        QVERIFY(wrongLength.error().message.find("cdc.length") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestWireMalformed)
#include "test_wire_malformed.moc"
