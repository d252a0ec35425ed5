// The wire codecs against the Linux kernel's own SMC-Rv2 messages
// (kernel_vectors.h, captured between two 6.12 kernels over rxe): every
// message decodes to the values the kernel put there, and encoding it again
// gives the kernel's bytes back, byte for byte. LLC messages go through the
// v2 encoder, since that is the form a v2 link group sends.
#include <smcr/wire/cdc.h>
#include <smcr/wire/clc.h>
#include <smcr/wire/describe.h>
#include <smcr/wire/llc.h>

#include <QTest>

#include "kernel_vectors.h"
#include "vectors.h"

using namespace smcr::wire;

namespace {

template <typename T>
T clcAs(const std::vector<uint8_t>& bytes) {
    auto msg = decodeClc(bytes);
    if (!msg) qFatal("decode failed: %s", msg.error().toString().c_str());
    if (!std::holds_alternative<T>(*msg)) qFatal("decoded to the wrong CLC message type");
    return std::get<T>(*msg);
}

template <typename T>
T llcAs(const std::vector<uint8_t>& bytes) {
    auto msg = decodeLlc(bytes);
    if (!msg) qFatal("decode failed: %s", msg.error().toString().c_str());
    if (!std::holds_alternative<T>(*msg)) qFatal("decoded to the wrong LLC message type");
    return std::get<T>(*msg);
}

Gid ipv4MappedGid(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
    return Gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d};
}

Eid blankPadded(const char* text) {
    Eid eid{};
    eid.fill(' ');
    for (size_t i = 0; text[i] != '\0' && i < eid.size(); ++i) eid[i] = static_cast<uint8_t>(text[i]);
    return eid;
}

const Mac kVm1Mac = {0x52, 0x54, 0x00, 0x5c, 0x00, 0x01};
const Mac kVm2Mac = {0x52, 0x54, 0x00, 0x5c, 0x00, 0x02};

}  // namespace

class TestWireKernel : public QObject {
    Q_OBJECT
private slots:
    void proposalV2Only() {
        const auto bytes = wirevec::hex(kernelvec::kProposalV2Only);
        QCOMPARE(bytes.size(), size_t{156});
        const auto p = clcAs<ClcProposal>(bytes);
        QCOMPARE(p.version, uint8_t{2});
        QCOMPARE(p.typeV1, SmcType::none);
        QCOMPARE(p.typeV2, SmcType::r);
        QCOMPARE(p.peerId, PeerId{});
        QCOMPARE(p.gid, Gid{});
        QCOMPARE(p.ipAreaOffset, uint16_t{0});
        QVERIFY(p.smcdArea.has_value());
        QCOMPARE(p.smcdArea->v2ExtOffset, uint16_t{28});
        QVERIFY(!p.ipPrefix.has_value());
        QVERIFY(p.v2Ext.has_value());
        QCOMPARE(p.v2Ext->release, uint8_t{1});
        QVERIFY(!p.v2Ext->seidIndicated);
        QCOMPARE(p.v2Ext->roceV2Gid, ipv4MappedGid(10, 77, 0, 1));
        QCOMPARE(p.v2Ext->maxConns, uint8_t{255});
        QCOMPARE(p.v2Ext->maxLinks, uint8_t{1});
        QCOMPARE(p.v2Ext->featureMask, uint16_t{1});
        QCOMPARE(p.v2Ext->ueids.size(), size_t{1});
        QCOMPARE(p.v2Ext->ueids[0], blankPadded("SMCLAB-VM"));
        QVERIFY(!p.smcdV2Ext.has_value());
        QCOMPARE(encode(p), bytes);
    }

    void acceptFirstContact() {
        const auto bytes = wirevec::hex(kernelvec::kAcceptV2FirstContactKernel);
        const auto a = clcAs<ClcAcceptConfirm>(bytes);
        QCOMPARE(a.type, ClcType::accept);
        QCOMPARE(a.version, uint8_t{2});
        QVERIFY(a.firstContact);
        QCOMPARE(a.gid, ipv4MappedGid(10, 77, 0, 2));
        QCOMPARE(a.mac, kVm2Mac);
        QCOMPARE(a.qpn, uint32_t{0x11});
        QCOMPARE(a.rmbRkey, uint32_t{0x3e7});
        QCOMPARE(a.rmbeIndex, uint8_t{1});
        QCOMPARE(a.rmbeAlertToken, uint32_t{1});
        QCOMPARE(a.rmbeSizeCode, uint8_t{2});  // net.smc.rmem 64 KiB
        QCOMPARE(a.qpMtu, IbMtu::mtu1024);
        QCOMPARE(a.rmbVaddr, uint64_t{0xff14f6d484c10000});
        QCOMPARE(a.initialPsn, uint32_t{0x9adc3c});
        QCOMPARE(a.eid, blankPadded("SMCLAB-VM"));
        QVERIFY(a.firstContactExt.has_value());
        QVERIFY(a.firstContactExt->v2Direct);
        QCOMPARE(a.firstContactExt->osType, uint8_t{2});
        QCOMPARE(a.firstContactExt->release, uint8_t{1});
        QCOMPARE(a.firstContactExt->hostname, blankPadded("vm2"));
        QCOMPARE(a.firstContactExt->maxConns, uint8_t{255});
        QCOMPARE(a.firstContactExt->maxLinks, uint8_t{1});
        QCOMPARE(a.firstContactExt->featureMask, uint16_t{1});
        QVERIFY(!a.gidList.has_value());  // only a Confirm carries the GID list
        QCOMPARE(encode(a), bytes);
    }

    void confirmFirstContactWithGidList() {
        const auto bytes = wirevec::hex(kernelvec::kConfirmV2GidListKernel);
        QCOMPARE(bytes.size(), size_t{180});
        const auto c = clcAs<ClcAcceptConfirm>(bytes);
        QCOMPARE(c.type, ClcType::confirm);
        QVERIFY(c.firstContact);
        QCOMPARE(c.gid, ipv4MappedGid(10, 77, 0, 1));
        QCOMPARE(c.mac, kVm1Mac);
        QCOMPARE(c.qpn, uint32_t{0x11});
        QCOMPARE(c.rmbeAlertToken, uint32_t{1});
        QVERIFY(c.firstContactExt.has_value());
        QCOMPARE(c.firstContactExt->hostname, blankPadded("vm1"));
        QVERIFY(c.gidList.has_value());
        QCOMPARE(c.gidList->size(), size_t{1});
        QCOMPARE(c.gidList->at(0), ipv4MappedGid(10, 77, 0, 1));
        QCOMPARE(encode(c), bytes);
    }

    // The second connection reuses the link group: no first contact, no FCE, 108 bytes.
    void acceptConfirmReusingTheLinkGroup() {
        for (const char* hex : {kernelvec::kAcceptV2ReuseKernel, kernelvec::kConfirmV2ReuseKernel}) {
            const auto bytes = wirevec::hex(hex);
            QCOMPARE(bytes.size(), size_t{108});
            const auto m = clcAs<ClcAcceptConfirm>(bytes);
            QVERIFY(!m.firstContact);
            QCOMPARE(m.version, uint8_t{2});
            QCOMPARE(m.rmbeAlertToken, uint32_t{2});
            QCOMPARE(m.qpn, uint32_t{0x11});
            QCOMPARE(m.eid, blankPadded("SMCLAB-VM"));
            QVERIFY(!m.firstContactExt.has_value());
            QCOMPARE(encode(m), bytes);
        }
    }

    void decline() {
        const auto bytes = wirevec::hex(kernelvec::kDeclineV1Kernel);
        const auto d = clcAs<ClcDecline>(bytes);
        QCOMPARE(d.version, uint8_t{1});
        QVERIFY(!d.outOfSync);
        QCOMPARE(d.reasonCode, uint32_t{0x03030000});
        QCOMPARE(d.osType, uint8_t{0});
        QCOMPARE(encode(d), bytes);
    }

    void confirmLink() {
        const auto request = wirevec::hex(kernelvec::kLlcConfirmLinkV2Request);
        auto header = peekLlcHeader(request);
        QVERIFY(header.ok());
        QVERIFY(header->v2);
        QCOMPARE(header->lengthBytes, uint16_t{44});
        const auto m = llcAs<LlcConfirmLink>(request);
        QVERIFY(!m.response);
        QVERIFY(m.noRmbeEyecatcher);
        QCOMPARE(m.senderMac, kVm2Mac);
        QCOMPARE(m.senderGid, ipv4MappedGid(10, 77, 0, 2));
        QCOMPARE(m.qpn, uint32_t{0x11});
        QCOMPARE(m.linkNumber, uint8_t{1});
        QCOMPARE(m.linkUid, uint32_t{0x101});
        QCOMPARE(m.maxLinks, uint8_t{1});
        QCOMPARE(m.maxConns, uint8_t{255});
        QCOMPARE(encodeLlcV2(m), request);
        QCOMPARE(encodeLlc(m, LlcVersion::v2), request);
        const auto response = wirevec::hex(kernelvec::kLlcConfirmLinkV2Response);
        const auto r = llcAs<LlcConfirmLink>(response);
        QVERIFY(r.response);
        QCOMPARE(r.senderMac, kVm1Mac);
        QCOMPARE(encodeLlcV2(r), response);
        // The same message in its v1 form differs only in the header.
        const LlcBytes v1 = encodeLlc(m);
        QCOMPARE(v1[0], uint8_t{0x01});
        QCOMPARE(v1[1], uint8_t{44});
        QVERIFY(std::equal(v1.begin() + 3, v1.end(), request.begin() + 3));
    }

    void confirmRkey() {
        const auto request = wirevec::hex(kernelvec::kLlcConfirmRkeyV2Request);
        const auto m = llcAs<LlcConfirmRkey>(request);
        QVERIFY(!m.response);
        QCOMPARE(m.entries[0].linkId, uint8_t{0});  // no entries for further links
        QCOMPARE(m.entries[0].rkey, uint32_t{0x3e7});
        QCOMPARE(m.entries[0].vaddr, uint64_t{0xff14f6d484c10000});
        QCOMPARE(encodeLlcV2(m), request);
        const auto response = wirevec::hex(kernelvec::kLlcConfirmRkeyV2Response);
        const auto r = llcAs<LlcConfirmRkey>(response);
        QVERIFY(r.response);
        QVERIFY(!r.negative);
        QCOMPARE(encodeLlcV2(r), response);
    }

    void deleteRkey() {
        const auto request = wirevec::hex(kernelvec::kLlcDeleteRkeyV2Request);
        const auto m = llcAs<LlcDeleteRkey>(request);
        QVERIFY(!m.response);
        QCOMPARE(m.numRkeys, uint8_t{1});
        QCOMPARE(m.rkeys[0], uint32_t{0x3e7});
        QCOMPARE(encodeLlcV2(m), request);
        const auto response = wirevec::hex(kernelvec::kLlcDeleteRkeyV2Response);
        const auto r = llcAs<LlcDeleteRkey>(response);
        QVERIFY(r.response);
        QCOMPARE(r.numRkeys, uint8_t{1});
        QCOMPARE(r.errorMask, uint8_t{0});
        QCOMPARE(r.rkeys[0], uint32_t{0});  // the kernel's response does not repeat the rkey
        QCOMPARE(encodeLlcV2(r), response);
    }

    void testLink() {
        for (const char* hex : {kernelvec::kLlcTestLinkV2Request, kernelvec::kLlcTestLinkV2Response}) {
            const auto bytes = wirevec::hex(hex);
            const auto m = llcAs<LlcTestLink>(bytes);
            QCOMPARE(m.response, bytes[3] == 0x80);
            QCOMPARE(m.userData, (std::array<uint8_t, 16>{}));
            QCOMPARE(encodeLlcV2(m), bytes);
            const LlcBytes v2 = asLlcV2(encode(m));  // how a v2 link group posts it
            QVERIFY(std::equal(v2.begin(), v2.end(), bytes.begin(), bytes.end()));
        }
    }

    // The one v2 message longer than 44 bytes: the rkeys ride in its extension.
    void addLinkWithExtension() {
        const auto request = wirevec::hex(kernelvec::kLlcAddLinkV2Request);
        QCOMPARE(request.size(), size_t{88});
        auto header = peekLlcHeader(request);
        QVERIFY(header.ok());
        QCOMPARE(header->lengthBytes, uint16_t{88});
        const auto m = llcAs<LlcAddLink>(request);
        QVERIFY(!m.response);
        QVERIFY(!m.rejected);
        QCOMPARE(m.senderMac, kVm2Mac);
        QCOMPARE(m.senderGid, ipv4MappedGid(10, 77, 0, 2));
        QCOMPARE(m.qpn, uint32_t{0x12});
        QCOMPARE(m.linkNumber, uint8_t{2});
        QCOMPARE(m.qpMtu, IbMtu::mtu1024);
        QCOMPARE(m.initialPsn, uint32_t{0x761277});
        QVERIFY(m.v2Ext.has_value());
        QVERIFY(m.v2Ext->direct);
        QCOMPARE(m.v2Ext->clientTargetGid, ipv4MappedGid(10, 77, 0, 2));
        QCOMPARE(m.v2Ext->rkeys.size(), size_t{1});
        QCOMPARE(m.v2Ext->rkeys[0].rkeyCurrent, uint32_t{0x346});
        QCOMPARE(m.v2Ext->rkeys[0].rkeyNew, uint32_t{0x5fe});
        QCOMPARE(m.v2Ext->rkeys[0].vaddrNew, uint64_t{0xff189c9444bd0000});
        QCOMPARE(encodeLlcV2(m), request);

        const auto reject = wirevec::hex(kernelvec::kLlcAddLinkV2Reject);
        const auto r = llcAs<LlcAddLink>(reject);
        QVERIFY(r.response);
        QVERIFY(r.rejected);
        QCOMPARE(r.rejectReason, uint8_t{0});  // byte 2 is the length's high byte in v2
        QVERIFY(!r.v2Ext.has_value());
        QCOMPARE(encodeLlcV2(r), reject);
    }

    void addLinkExtensionMustMatchItsCount() {
        auto bytes = wirevec::hex(kernelvec::kLlcAddLinkV2Request);
        bytes[44 + 27] = 2;  // two entries claimed, one present
        auto msg = decodeLlc(bytes);
        QVERIFY(!msg.ok());
        QCOMPARE(msg.error().code, smcr::Errc::malformed);
        QVERIFY2(msg.error().message.find("v2_ext.num_rkeys") != std::string::npos, msg.error().message.c_str());
        // A response has nothing behind byte 44.
        bytes = wirevec::hex(kernelvec::kLlcAddLinkV2Request);
        bytes[3] = 0x80;
        msg = decodeLlc(bytes);
        QVERIFY(!msg.ok());
        QVERIFY2(msg.error().message.find("exactly 44") != std::string::npos, msg.error().message.c_str());
    }

    void cdc() {
        const auto blocked = wirevec::hex(kernelvec::kCdcWriteBlocked);
        auto m = decodeCdc(blocked);
        QVERIFY(m.ok());
        QCOMPARE(m->seqno, uint16_t{1});
        QCOMPARE(m->alertToken, uint32_t{1});
        QCOMPARE(m->producer.wrap, uint16_t{1});
        QCOMPARE(m->producer.count, uint32_t{0});
        QVERIFY(m->prodFlags.writeBlocked);
        QCOMPARE(toVector(encode(*m)), blocked);
        const auto closing = wirevec::hex(kernelvec::kCdcClosing);
        m = decodeCdc(closing);
        QVERIFY(m.ok());
        QCOMPARE(m->seqno, uint16_t{4});
        QCOMPARE(m->producer.count, uint32_t{0x86a0});
        QCOMPARE(m->consumer.count, uint32_t{0x40});
        QVERIFY(m->connFlags.peerDoneWriting);
        QVERIFY(m->connFlags.peerConnClosed);
        QVERIFY(!m->connFlags.peerAbnormalClose);
        QCOMPARE(toVector(encode(*m)), closing);
    }

    // What `smclab decode` and the GUI show for a v2 LLC message.
    void describeV2() {
        const auto bytes = wirevec::hex(kernelvec::kLlcAddLinkV2Request);
        const auto msg = decodeLlc(bytes);
        QVERIFY(msg.ok());
        const std::string text = formatDescription(describe(*msg, LlcVersion::v2));
        QVERIFY2(text.find("SMC-R LLC ADD_LINK_V2 request (0x22, 88 bytes)") != std::string::npos, text.c_str());
        QVERIFY2(text.find("client_target_gid") != std::string::npos, text.c_str());
        QVERIFY2(text.find("rmb_key_new: 0x000005fe") != std::string::npos, text.c_str());
        const std::string v1 = formatDescription(describe(*msg));
        QVERIFY2(v1.find("ADD_LINK request (0x02, 44 bytes)") != std::string::npos, v1.c_str());
    }

private:
    template <size_t N>
    static std::vector<uint8_t> toVector(const std::array<uint8_t, N>& bytes) {
        return {bytes.begin(), bytes.end()};
    }
};

QTEST_APPLESS_MAIN(TestWireKernel)
#include "test_wire_kernel.moc"
