// Known CLC vectors (vectors.h, offsets from smc-protocol.md 1.2-1.6):
// every field decodes to the value written in the table, and encoding the
// decoded message gives back the same bytes.
#include <smcr/wire/clc.h>
#include <smcr/wire/decline_reasons.h>
#include <smcr/wire/describe.h>

#include <QTest>

#include "vectors.h"

using namespace smcr::wire;

namespace {

template <typename T>
T decodeAs(const std::vector<uint8_t>& bytes) {
    auto msg = decodeClc(bytes);
    if (!msg) qFatal("decode failed: %s", msg.error().toString().c_str());
    if (!std::holds_alternative<T>(*msg)) qFatal("decoded to the wrong message type");
    return std::get<T>(*msg);
}

Gid gidFromHex(const char* text) {
    Gid gid{};
    const auto bytes = wirevec::hex(text);
    std::copy(bytes.begin(), bytes.end(), gid.begin());
    return gid;
}

}  // namespace

class TestWireClc : public QObject {
    Q_OBJECT
private slots:
    void peekHeader() {
        const auto bytes = wirevec::hex(wirevec::kAcceptV1);
        auto header = peekClcHeader(std::span(bytes).first(8));
        QVERIFY(header.ok());
        QCOMPARE(header->type, ClcType::accept);
        QCOMPARE(header->lengthBytes, uint16_t{68});
        QCOMPARE(header->version, uint8_t{1});
        QCOMPARE(header->eyecatcher, Eyecatcher::smcr);
        auto shortHeader = peekClcHeader(std::span(bytes).first(7));
        QVERIFY(!shortHeader.ok());
        QCOMPARE(shortHeader.error().code, smcr::Errc::malformed);
    }

    void proposalV1() {
        const auto bytes = wirevec::hex(wirevec::kProposalV1);
        QCOMPARE(bytes.size(), size_t{92});
        const auto msg = decodeAs<ClcProposal>(bytes);
        QCOMPARE(msg.version, uint8_t{1});
        QCOMPARE(msg.typeV1, SmcType::r);
        QCOMPARE(msg.typeV2, SmcType::none);
        QCOMPARE(msg.peerId[0], uint8_t{0x12});
        QCOMPARE(msg.peerId[7], uint8_t{0x01});
        QVERIFY(msg.gid == gidFromHex("fe800000000000000200 00fffe000001"));
        QCOMPARE(msg.mac[5], uint8_t{0x01});
        QCOMPARE(msg.ipAreaOffset, uint16_t{40});
        QVERIFY(msg.smcdArea.has_value());
        QVERIFY(msg.ipPrefix.has_value());
        QCOMPARE(msg.ipPrefix->ipv4Subnet, uint32_t{0xC0A80100});
        QCOMPARE(msg.ipPrefix->ipv4PrefixLength, uint8_t{24});
        QVERIFY(msg.ipPrefix->ipv6Prefixes.empty());
        QVERIFY(!msg.v2Ext.has_value());
        QCOMPARE(encode(msg), bytes);
    }

    void proposalV2WithUeid() {
        const auto bytes = wirevec::hex(wirevec::kProposalV2);
        QCOMPARE(bytes.size(), size_t{164});
        const auto msg = decodeAs<ClcProposal>(bytes);
        QCOMPARE(msg.version, uint8_t{2});
        QCOMPARE(msg.typeV2, SmcType::r);
        QCOMPARE(msg.smcdArea->v2ExtOffset, uint16_t{36});
        QVERIFY(msg.v2Ext.has_value());
        QCOMPARE(msg.v2Ext->release, uint8_t{1});
        QCOMPARE(msg.v2Ext->maxConns, uint8_t{255});
        QCOMPARE(msg.v2Ext->maxLinks, uint8_t{2});
        QVERIFY(msg.v2Ext->roceV2Gid == gidFromHex("00000000000000000000ffffc0a8010a"));
        QCOMPARE(msg.v2Ext->ueids.size(), size_t{1});
        QCOMPARE(std::string(msg.v2Ext->ueids[0].begin(), msg.v2Ext->ueids[0].begin() + 11),
                 std::string("SMCLAB-UEID"));
        QVERIFY(!msg.smcdV2Ext.has_value());
        QCOMPARE(encode(msg), bytes);
    }

    void proposalWithIpv6Prefixes() {
        // Built through the encoder: v1 length = 40 + offset + 8 + 17n + 4 (section 1.2).
        ClcProposal msg;
        msg.version = 1;
        msg.typeV1 = SmcType::r;
        msg.ipAreaOffset = 40;
        msg.smcdArea = ClcProposalSmcdArea{};
        ClcProposalIpPrefix prefix;
        prefix.ipv4Subnet = 0x0A000000;
        prefix.ipv4PrefixLength = 8;
        for (uint8_t i = 0; i < 3; ++i) {
            Ipv6Prefix p;
            p.prefix[0] = 0x20;
            p.prefix[1] = 0x01;
            p.prefix[15] = i;
            p.prefixLength = 64;
            prefix.ipv6Prefixes.push_back(p);
        }
        msg.ipPrefix = prefix;
        const auto bytes = encode(msg);
        QCOMPARE(bytes.size(), size_t{40 + 40 + 8 + 17 * 3 + 4});
        QCOMPARE(bytes[87], uint8_t{3});     // IPv6 prefix count
        QCOMPARE(bytes[88], uint8_t{0x20});  // first prefix
        QCOMPARE(bytes[104], uint8_t{64});   // its length
        QCOMPARE(decodeAs<ClcProposal>(bytes), msg);
    }

    void acceptV1() {
        const auto bytes = wirevec::hex(wirevec::kAcceptV1);
        const auto msg = decodeAs<ClcAcceptConfirm>(bytes);
        QCOMPARE(msg.type, ClcType::accept);
        QCOMPARE(msg.version, uint8_t{1});
        QVERIFY(msg.firstContact);
        QCOMPARE(msg.qpn, uint32_t{0x123});
        QCOMPARE(msg.rmbRkey, uint32_t{0x1234});
        QCOMPARE(msg.rmbeIndex, uint8_t{1});
        QCOMPARE(msg.rmbeAlertToken, uint32_t{5});
        QCOMPARE(msg.rmbeSizeCode, uint8_t{3});
        QCOMPARE(rmbeCodeToSize(msg.rmbeSizeCode), uint32_t{128 * 1024});
        QCOMPARE(msg.qpMtu, IbMtu::mtu1024);
        QCOMPARE(msg.initCredits, uint8_t{0});
        QCOMPARE(msg.rmbVaddr, uint64_t{0x00007f0012345000});
        QCOMPARE(msg.initialPsn, uint32_t{0xabcd});
        QVERIFY(!msg.firstContactExt.has_value());
        QCOMPARE(encode(msg), bytes);
    }

    void acceptV2FirstContact() {
        const auto bytes = wirevec::hex(wirevec::kAcceptV2FirstContact);
        const auto msg = decodeAs<ClcAcceptConfirm>(bytes);
        QCOMPARE(msg.version, uint8_t{2});
        QVERIFY(msg.firstContact);
        QCOMPARE(msg.rmbeSizeCode, uint8_t{4});
        QCOMPARE(msg.qpMtu, IbMtu::mtu4096);
        QVERIFY(msg.firstContactExt.has_value());
        QVERIFY(msg.firstContactExt->v2Direct);
        QCOMPARE(msg.firstContactExt->osType, uint8_t{2});
        QCOMPARE(msg.firstContactExt->release, uint8_t{1});
        QCOMPARE(msg.firstContactExt->maxConns, uint8_t{255});
        QCOMPARE(msg.firstContactExt->maxLinks, uint8_t{2});
        QCOMPARE(msg.firstContactExt->hostname[5], uint8_t{'a'});
        QVERIFY(!msg.gidList.has_value());
        QCOMPARE(encode(msg), bytes);
    }

    void confirmV2GidList() {
        const auto bytes = wirevec::hex(wirevec::kConfirmV2GidList);
        const auto msg = decodeAs<ClcAcceptConfirm>(bytes);
        QCOMPARE(msg.type, ClcType::confirm);
        QVERIFY(msg.gidList.has_value());
        QCOMPARE(msg.gidList->size(), size_t{2});
        QVERIFY((*msg.gidList)[1] == gidFromHex("00000000000000000000ffffc0a8020a"));
        QCOMPARE(encode(msg), bytes);
    }

    void experimentalInitCredits() {
        // Seed 004: byte 51 of Accept/Confirm carries the initial receive credits.
        auto bytes = wirevec::hex(wirevec::kAcceptV1);
        bytes[51] = 48;
        const auto msg = decodeAs<ClcAcceptConfirm>(bytes);
        QCOMPARE(msg.initCredits, uint8_t{48});
        QCOMPARE(encode(msg), bytes);
    }

    void declines() {
        const auto v1 = wirevec::hex(wirevec::kDeclineV1);
        const auto d1 = decodeAs<ClcDecline>(v1);
        QCOMPARE(d1.version, uint8_t{1});
        QCOMPARE(d1.reasonCode, uint32_t{0x03030000});
        QCOMPARE(QString(declineReasonName(d1.reasonCode)), QString("NOSMCDEV"));
        QVERIFY(!d1.outOfSync);
        QCOMPARE(encode(d1), v1);

        const auto v2 = wirevec::hex(wirevec::kDeclineV2);
        const auto d2 = decodeAs<ClcDecline>(v2);
        QCOMPARE(d2.version, uint8_t{2});
        QVERIFY(d2.outOfSync);
        QCOMPARE(d2.reasonCode, uint32_t{0x04000000});
        QCOMPARE(d2.osType, uint8_t{2});
        QCOMPARE(d2.additionalReasons[0], uint32_t{0x03030008});
        QCOMPARE(encode(d2), v2);
    }

    void declineTrailerIsNotChecked() {
        // The kernel skips the trailer check for Decline (section 1.2).
        auto bytes = wirevec::hex(wirevec::kDeclineV1);
        bytes[27] = 0;
        QVERIFY(decodeClc(bytes).ok());
    }

    void declineReasonNames() {
        const std::pair<uint32_t, const char*> expected[] = {
            {0x01010000, "MEM"},        {0x02010000, "TIMEOUT_CL"}, {0x02020000, "TIMEOUT_AL"},
            {0x03000000, "CNFERR"},     {0x03010000, "PEERNOSMC"},  {0x03020000, "IPSEC"},
            {0x03030000, "NOSMCDEV"},   {0x03030001, "NOSMCDDEV"},  {0x03030002, "NOSMCRDEV"},
            {0x03030003, "NOISM2SUPP"}, {0x03030004, "NOV2EXT"},    {0x03030005, "NOV2DEXT"},
            {0x03030006, "NOSEID"},     {0x03030007, "NOSMCD2DEV"}, {0x03030008, "NOUEID"},
            {0x03030009, "RELEASEERR"}, {0x0303000a, "MAXCONNERR"}, {0x0303000b, "MAXLINKERR"},
            {0x03040000, "MODEUNSUPP"}, {0x03050000, "RMBE_EC"},    {0x03060000, "OPTUNSUPP"},
            {0x03070000, "DIFFPREFIX"}, {0x03080000, "GETVLANERR"}, {0x03090000, "ISMVLANERR"},
            {0x030a0000, "NOACTLINK"},  {0x030b0000, "NOSRVLINK"},  {0x030c0000, "VERSMISMAT"},
            {0x030d0000, "MAX_DMB"},    {0x030e0000, "NOROUTE"},    {0x030f0000, "NOINDIRECT"},
            {0x04000000, "SYNCERR"},    {0x05000000, "PEERDECL"},   {0x09990000, "INTERR"},
            {0x09990001, "ERR_RTOK"},   {0x09990002, "ERR_RDYLNK"}, {0x09990003, "ERR_REGBUF"},
            {0x09990004, "CREDITSERR"},
        };
        for (const auto& [code, name] : expected) QCOMPARE(QString(declineReasonName(code)), QString(name));
        QCOMPARE(declineReasonTable().size(), std::size(expected));
        QVERIFY(declineReasonName(0x12345678) == nullptr);
        QCOMPARE(QString::fromStdString(formatDeclineReason(0x03010000)), QString("PEERNOSMC (0x03010000)"));
    }

    void rmbeSizeCodes() {
        QCOMPARE(rmbeSizeToCode(0), uint8_t{0});
        QCOMPARE(rmbeSizeToCode(16 * 1024), uint8_t{0});
        QCOMPARE(rmbeSizeToCode(16 * 1024 + 1), uint8_t{1});
        QCOMPARE(rmbeSizeToCode(32 * 1024), uint8_t{1});
        QCOMPARE(rmbeSizeToCode(64 * 1024), uint8_t{2});
        QCOMPARE(rmbeSizeToCode(100 * 1024), uint8_t{3});
        QCOMPARE(rmbeSizeToCode(512 * 1024), uint8_t{5});
        QCOMPARE(rmbeSizeToCode(1024 * 1024), uint8_t{6});
        for (uint8_t code = 0; code <= 10; ++code) QCOMPARE(rmbeSizeToCode(rmbeCodeToSize(code)), code);
        QCOMPARE(rmbeCodeToSize(5), uint32_t{512 * 1024});
        QCOMPARE(QString::fromStdString(formatRmbeSize(3)), QString("3 (128 KiB)"));
    }

    void ibMtu() {
        QCOMPARE(ibMtuBytes(IbMtu::mtu256), uint32_t{256});
        QCOMPARE(ibMtuBytes(IbMtu::mtu4096), uint32_t{4096});
        QCOMPARE(ibMtuBytes(static_cast<IbMtu>(9)), uint32_t{0});
        QCOMPARE(ibMtuFromBytes(1500), IbMtu::mtu1024);
        QCOMPARE(ibMtuFromBytes(9000), IbMtu::mtu4096);
        QCOMPARE(ibMtuFromBytes(100), IbMtu::invalid);
    }

    void describeAccept() {
        const auto msg = decodeClc(wirevec::hex(wirevec::kAcceptV1));
        QVERIFY(msg.ok());
        const Description d = describe(*msg);
        QCOMPARE(QString::fromStdString(d.title), QString("SMC-R CLC Accept (v1, 68 bytes)"));
        const std::string text = formatDescription(d);
        QVERIFY2(text.find("  rmbe_size: 3 (128 KiB)\n") != std::string::npos, text.c_str());
        QVERIFY2(text.find("  qpn: 0x000123 (291)\n") != std::string::npos, text.c_str());
        QVERIFY2(text.find("  first_contact: yes\n") != std::string::npos, text.c_str());
    }
};

QTEST_APPLESS_MAIN(TestWireClc)
#include "test_wire_clc.moc"
