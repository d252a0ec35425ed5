// Random round trips with a fixed seed: random valid messages survive
// encode -> decode -> encode unchanged, and random mutations of the known
// vectors either fail to decode or decode to a message that re-encodes and
// decodes to itself (the property the fuzz targets check at scale).
#include <random>

#include <smcr/wire/cdc.h>
#include <smcr/wire/clc.h>
#include <smcr/wire/llc.h>

#include <QTest>

#include "kernel_vectors.h"
#include "vectors.h"

using namespace smcr::wire;

namespace {

constexpr int kIterations = 3000;

class Gen {
public:
    explicit Gen(uint32_t seed) : m_rng(seed) {}
    uint64_t u64() { return m_rng(); }
    uint32_t u32() { return static_cast<uint32_t>(m_rng()); }
    uint16_t u16() { return static_cast<uint16_t>(m_rng()); }
    uint8_t u8() { return static_cast<uint8_t>(m_rng()); }
    uint32_t below(uint32_t n) { return static_cast<uint32_t>(m_rng() % n); }
    bool coin() { return (m_rng() & 1) != 0; }
    template <size_t N>
    std::array<uint8_t, N> bytes() {
        std::array<uint8_t, N> out{};
        for (auto& b : out) b = u8();
        return out;
    }

private:
    std::mt19937_64 m_rng;
};

ClcProposal randomProposal(Gen& g, uint16_t* expectedIpAreaOffset) {
    ClcProposal m;
    m.eyecatcher = g.coin() ? Eyecatcher::smcr : Eyecatcher::smcd;
    m.version = g.coin() ? 1 : 2;
    m.peerId = g.bytes<8>();
    m.gid = g.bytes<16>();
    m.mac = g.bytes<6>();
    if (m.version == 1) {
        m.typeV1 = static_cast<SmcType>(std::array<uint8_t, 3>{0, 1, 3}[g.below(3)]);
        m.typeV2 = static_cast<SmcType>(g.below(4));
    } else {
        do {
            m.typeV1 = static_cast<SmcType>(g.below(4));
            m.typeV2 = static_cast<SmcType>(g.below(4));
        } while (m.typeV1 == SmcType::none && m.typeV2 == SmcType::none);
    }
    const bool smcd = m.version >= 2 || g.coin();
    const uint16_t gap = static_cast<uint16_t>(g.below(3) == 0 ? g.below(16) : 0);
    m.ipAreaOffset = static_cast<uint16_t>((smcd ? 40 : 0) + gap);
    if (smcd) {
        ClcProposalSmcdArea a;
        a.ismGid = g.u64();
        a.ismChid = g.u16();
        a.vendorOui = g.bytes<3>();
        a.vendorOptions = g.bytes<5>();
        m.smcdArea = a;
    }
    if (m.typeV1 != SmcType::none) {
        ClcProposalIpPrefix p;
        p.ipv4Subnet = g.u32();
        p.ipv4PrefixLength = static_cast<uint8_t>(g.below(33));
        for (uint32_t i = g.below(9); i > 0; --i)
            p.ipv6Prefixes.push_back({g.bytes<16>(), static_cast<uint8_t>(g.below(129))});
        m.ipPrefix = p;
    } else if (m.version >= 2) {
        m.ipAreaOffset = g.u16();  // unused without an IP area, kept as is
    }
    *expectedIpAreaOffset = m.ipAreaOffset;
    if (m.version >= 2 && m.typeV2 != SmcType::none) {
        ClcProposalV2Ext e;
        e.release = static_cast<uint8_t>(g.below(16));
        e.seidIndicated = g.coin();
        e.roceV2Gid = g.bytes<16>();
        e.maxConns = g.u8();
        e.maxLinks = g.u8();
        e.featureMask = g.u16();
        for (uint32_t i = g.below(9); i > 0; --i) e.ueids.push_back(g.bytes<32>());
        m.v2Ext = e;
        if (m.typeV2 == SmcType::d || m.typeV2 == SmcType::both) {
            ClcProposalSmcdV2Ext d;
            d.seid = g.bytes<32>();
            for (uint32_t i = g.below(9); i > 0; --i) d.ismGids.push_back({g.u64(), g.u16()});
            m.smcdV2Ext = d;
        }
    }
    return m;
}

ClcAcceptConfirm randomAcceptConfirm(Gen& g) {
    ClcAcceptConfirm m;
    m.type = g.coin() ? ClcType::accept : ClcType::confirm;
    m.version = g.coin() ? 1 : 2;
    m.firstContact = g.coin();
    m.peerId = g.bytes<8>();
    m.gid = g.bytes<16>();
    m.mac = g.bytes<6>();
    m.qpn = g.u32() & 0xFFFFFF;
    m.rmbRkey = g.u32();
    m.rmbeIndex = g.u8();
    m.rmbeAlertToken = g.u32();
    m.rmbeSizeCode = static_cast<uint8_t>(g.below(6));
    m.qpMtu = static_cast<IbMtu>(g.below(16));
    m.initCredits = g.u8();
    m.rmbVaddr = g.u64();
    m.initialPsn = g.u32() & 0xFFFFFF;
    if (m.version >= 2) {
        m.eid = g.bytes<32>();
        if (g.coin()) {
            ClcFirstContactExt f;
            f.v2Direct = g.coin();
            f.osType = static_cast<uint8_t>(g.below(16));
            f.release = static_cast<uint8_t>(g.below(16));
            f.hostname = g.bytes<32>();
            f.maxConns = g.u8();
            f.maxLinks = g.u8();
            f.featureMask = g.u16();
            f.vendorOptions = g.bytes<4>();
            m.firstContactExt = f;
            if (g.coin()) {
                std::vector<Gid> gids;
                for (uint32_t i = g.below(3); i > 0; --i) gids.push_back(g.bytes<16>());
                m.gidList = gids;
            }
        }
    }
    return m;
}

ClcDecline randomDecline(Gen& g) {
    ClcDecline m;
    m.eyecatcher = g.coin() ? Eyecatcher::smcr : Eyecatcher::smcd;
    m.version = static_cast<uint8_t>(1 + g.below(15));
    m.outOfSync = g.coin();
    m.peerId = g.bytes<8>();
    m.reasonCode = g.u32();
    m.osType = static_cast<uint8_t>(g.below(16));
    if (m.version >= 2) {
        for (auto& code : m.additionalReasons) code = g.u32();
    }
    return m;
}

LinkRkey randomLinkRkey(Gen& g) {
    return {g.u8(), g.u32(), g.u64()};
}

LlcMessage randomLlc(Gen& g) {
    switch (g.below(9)) {
        case 0: {
            LlcConfirmLink m;
            m.response = g.coin();
            m.noRmbeEyecatcher = g.coin();
            m.senderMac = g.bytes<6>();
            m.senderGid = g.bytes<16>();
            m.qpn = g.u32() & 0xFFFFFF;
            m.linkNumber = g.u8();
            m.linkUid = g.u32();
            m.maxLinks = g.u8();
            m.maxConns = g.u8();
            return m;
        }
        case 1: {
            LlcAddLink m;
            m.response = g.coin();
            m.rejected = g.coin();
            m.rejectReason = static_cast<uint8_t>(g.below(16));
            m.senderMac = g.bytes<6>();
            m.senderGid = g.bytes<16>();
            m.qpn = g.u32() & 0xFFFFFF;
            m.linkNumber = g.u8();
            m.qpMtu = static_cast<IbMtu>(g.below(16));
            m.initialPsn = g.u32() & 0xFFFFFF;
            m.initCredits = g.u8();
            return m;
        }
        case 2: {
            LlcAddLinkCont m;
            m.response = g.coin();
            m.linkNumber = g.u8();
            m.numRkeys = g.u8();
            for (auto& pair : m.rkeys) pair = {g.u32(), g.u32(), g.u64()};
            return m;
        }
        case 3: {
            LlcDeleteLink m;
            m.response = g.coin();
            m.allLinks = g.coin();
            m.orderly = g.coin();
            m.linkNumber = g.u8();
            m.reason = g.u32();
            return m;
        }
        case 4: {
            LlcConfirmRkey m;
            m.response = g.coin();
            m.negative = g.coin();
            m.retry = g.coin();
            for (auto& e : m.entries) e = randomLinkRkey(g);
            return m;
        }
        case 5: {
            LlcConfirmRkeyCont m;
            m.response = g.coin();
            m.negative = g.coin();
            m.retry = g.coin();
            m.numRkeys = g.u8();
            for (auto& e : m.entries) e = randomLinkRkey(g);
            return m;
        }
        case 6: {
            LlcTestLink m;
            m.response = g.coin();
            m.userData = g.bytes<16>();
            return m;
        }
        case 7: {
            LlcDeleteRkey m;
            m.response = g.coin();
            m.numRkeys = static_cast<uint8_t>(g.below(9));
            m.errorMask = g.u8();
            for (auto& k : m.rkeys) k = g.u32();
            return m;
        }
        default: {
            LlcAnnounceCredits m;
            m.response = g.coin();
            m.credits = g.u8();
            return m;
        }
    }
}

CdcMessage randomCdc(Gen& g) {
    CdcMessage m;
    m.seqno = g.u16();
    m.alertToken = g.u32();
    m.producer = {g.u16(), g.u32()};
    m.consumer = {g.u16(), g.u32()};
    m.prodFlags = {g.coin(), g.coin(), g.coin(), g.coin(), g.coin()};
    m.connFlags = {g.coin(), g.coin(), g.coin()};
    m.credits = g.u8();
    return m;
}

}  // namespace

class TestWireRoundtrip : public QObject {
    Q_OBJECT
private slots:
    void proposals() {
        Gen g(1);
        for (int i = 0; i < kIterations; ++i) {
            uint16_t expectedIpAreaOffset = 0;
            ClcProposal msg = randomProposal(g, &expectedIpAreaOffset);
            const auto bytes = encode(msg);
            auto decoded = decodeClcProposal(bytes);
            QVERIFY2(decoded.ok(), decoded.ok() ? "" : decoded.error().message.c_str());
            QCOMPARE(decoded->ipAreaOffset, expectedIpAreaOffset);
            // The encoder chose the v2 offsets (given as 0 = "right after"): adopt them.
            if (msg.smcdArea) msg.smcdArea->v2ExtOffset = decoded->smcdArea->v2ExtOffset;
            if (msg.v2Ext) msg.v2Ext->smcdV2ExtOffset = decoded->v2Ext->smcdV2ExtOffset;
            QVERIFY(*decoded == msg);
            QCOMPARE(encode(*decoded), bytes);
        }
    }

    void acceptConfirms() {
        Gen g(2);
        for (int i = 0; i < kIterations; ++i) {
            const ClcAcceptConfirm msg = randomAcceptConfirm(g);
            const auto bytes = encode(msg);
            auto decoded = decodeClc(bytes);
            QVERIFY2(decoded.ok(), decoded.ok() ? "" : decoded.error().message.c_str());
            QVERIFY(std::get<ClcAcceptConfirm>(*decoded) == msg);
            QCOMPARE(encodeClc(*decoded), bytes);
        }
    }

    void declines() {
        Gen g(3);
        for (int i = 0; i < kIterations; ++i) {
            const ClcDecline msg = randomDecline(g);
            const auto bytes = encode(msg);
            auto decoded = decodeClc(bytes);
            QVERIFY2(decoded.ok(), decoded.ok() ? "" : decoded.error().message.c_str());
            QVERIFY(std::get<ClcDecline>(*decoded) == msg);
            QCOMPARE(encodeClc(*decoded), bytes);
        }
    }

    void llcMessages() {
        Gen g(4);
        for (int i = 0; i < kIterations; ++i) {
            const LlcMessage msg = randomLlc(g);
            const LlcBytes bytes = encodeLlc(msg);
            QCOMPARE(bytes[1], uint8_t{44});
            auto decoded = decodeLlc(bytes);
            QVERIFY2(decoded.ok(), decoded.ok() ? "" : decoded.error().message.c_str());
            QVERIFY(*decoded == msg);
            QVERIFY(encodeLlc(*decoded) == bytes);
        }
    }

    // The v2 forms: the same bodies under a v2 header, and ADD_LINK requests
    // with an extension of 0..40 rkey entries. v2 has no reject reason (byte
    // 2 is the length's high byte) and a response carries no extension.
    void llcV2Messages() {
        Gen g(14);
        for (int i = 0; i < kIterations; ++i) {
            LlcMessage msg = randomLlc(g);
            if (auto* add = std::get_if<LlcAddLink>(&msg)) {
                add->rejectReason = 0;
                if (!add->response && g.coin()) {
                    LlcAddLinkV2Ext ext;
                    ext.direct = g.coin();
                    ext.clientTargetGid = g.bytes<16>();
                    for (size_t n = g.below(41); n > 0; --n) ext.rkeys.push_back({g.u32(), g.u32(), g.u64()});
                    add->v2Ext = ext;
                }
            }
            const std::vector<uint8_t> bytes = encodeLlcV2(msg);
            const bool v2Form = (bytes[0] & 0x20) != 0;
            QCOMPARE(v2Form, bytes[0] != static_cast<uint8_t>(LlcType::addLinkCont) &&
                                 bytes[0] != static_cast<uint8_t>(LlcType::confirmRkeyCont) &&
                                 bytes[0] != static_cast<uint8_t>(LlcType::announceCredits));
            if (v2Form) QCOMPARE(size_t{bytes[1]} | (size_t{bytes[2]} << 8), bytes.size());
            auto decoded = decodeLlc(bytes);
            QVERIFY2(decoded.ok(), decoded.ok() ? "" : decoded.error().message.c_str());
            QVERIFY(*decoded == msg);
            QVERIFY(encodeLlcV2(*decoded) == bytes);
        }
    }

    void cdcMessages() {
        Gen g(5);
        for (int i = 0; i < kIterations; ++i) {
            const CdcMessage msg = randomCdc(g);
            const CdcBytes bytes = encode(msg);
            auto decoded = decodeCdc(bytes);
            QVERIFY(decoded.ok());
            QVERIFY(*decoded == msg);
            QVERIFY(encode(*decoded) == bytes);
        }
    }

    void mutatedVectorsAreStable() {
        // Random byte flips of every known vector: decode never misbehaves, and
        // whatever decodes is a fixed point of encode/decode.
        const char* const vectors[] = {wirevec::kProposalV1,
                                       wirevec::kProposalV2,
                                       wirevec::kAcceptV1,
                                       wirevec::kAcceptV2FirstContact,
                                       wirevec::kConfirmV2GidList,
                                       wirevec::kDeclineV1,
                                       wirevec::kDeclineV2,
                                       wirevec::kLlcConfirmLink,
                                       wirevec::kLlcAddLinkReject,
                                       wirevec::kLlcAddLinkCont,
                                       wirevec::kLlcDeleteLink,
                                       wirevec::kLlcConfirmRkey,
                                       wirevec::kLlcConfirmRkeyCont,
                                       wirevec::kLlcTestLink,
                                       wirevec::kLlcDeleteRkey,
                                       wirevec::kLlcAnnounceCredits,
                                       wirevec::kCdc,
                                       kernelvec::kProposalV2Only,
                                       kernelvec::kAcceptV2FirstContactKernel,
                                       kernelvec::kConfirmV2GidListKernel,
                                       kernelvec::kLlcConfirmLinkV2Request,
                                       kernelvec::kLlcAddLinkV2Request,
                                       kernelvec::kLlcDeleteRkeyV2Request,
                                       kernelvec::kCdcClosing};
        Gen g(6);
        int decodedCount = 0;
        for (int i = 0; i < 20000; ++i) {
            auto bytes = wirevec::hex(vectors[g.below(std::size(vectors))]);
            for (uint32_t flips = 1 + g.below(3); flips > 0; --flips)
                bytes[g.below(static_cast<uint32_t>(bytes.size()))] = g.u8();
            if (auto clc = decodeClc(bytes)) {
                ++decodedCount;
                auto again = decodeClc(encodeClc(*clc));
                QVERIFY(again.ok());
                QVERIFY(*again == *clc);
            }
            if (auto llc = decodeLlc(bytes)) {
                ++decodedCount;
                const bool v2 = peekLlcHeader(bytes)->v2;
                auto again = decodeLlc(encodeLlc(*llc, v2 ? LlcVersion::v2 : LlcVersion::v1));
                QVERIFY(again.ok());
                QVERIFY(*again == *llc);
            }
            if (auto cdc = decodeCdc(bytes)) {
                ++decodedCount;
                auto again = decodeCdc(encode(*cdc));
                QVERIFY(again.ok());
                QVERIFY(*again == *cdc);
            }
        }
        QVERIFY(decodedCount > 1000);  // the mutations did reach the decoders' bodies
    }
};

QTEST_APPLESS_MAIN(TestWireRoundtrip)
#include "test_wire_roundtrip.moc"
