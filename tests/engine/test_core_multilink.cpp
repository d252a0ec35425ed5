// The functional core of multi-link groups: the ADD_LINK flow between a
// server and a client core, the rkey table (ADD_LINK_CONT, CONFIRM_RKEY,
// DELETE_RKEY), the link-loss decision and CDC failover validation with the
// send-side rewind (smc-protocol.md sections 2 and 7).
#include <QTest>

#include "core/connection/connection_core.h"
#include "core/link/add_link_flow.h"
#include "core/link/link_core.h"
#include "core/link/link_failover.h"
#include "core/link/rkey_table.h"

using namespace smcr::core;
using smcr::Side;
namespace wire = smcr::wire;

namespace {

// A plain send of `bytes` already copied into the sndbuf: no cork, no autocorking.
AppSendEvent committed(uint32_t bytes) {
    AppSendEvent e;
    e.committedBytes = bytes;
    return e;
}

LinkEndpoint endpoint(uint8_t tag) {
    LinkEndpoint e;
    e.mac = {2, 0, 0, 0, tag, 2};
    e.gid[15] = tag;
    e.qpn = 0x100u + tag;
    e.psn = 0x1000u + tag;
    e.mtu = wire::IbMtu::mtu4096;
    return e;
}

std::vector<wire::RkeyPair> rkeys(uint32_t base, size_t n) {
    std::vector<wire::RkeyPair> out;
    for (size_t i = 0; i < n; ++i) {
        const auto k = static_cast<uint32_t>(base + i);
        out.push_back(wire::RkeyPair{k, k + 0x10000, 0xA000'0000ull + k});
    }
    return out;
}

// Runs the whole flow between two cores, as the two shells would, and
// returns the rkeys each side learned. Messages go through the wire codec.
struct FlowRun {
    std::vector<wire::RkeyPair> serverLearned;
    std::vector<wire::RkeyPair> clientLearned;
    int contsFromServer = 0;
    int contsFromClient = 0;
    bool serverActive = false;
    bool clientActive = false;
    std::optional<LinkEndpoint> serverBringUp;
    std::optional<LinkEndpoint> clientBringUp;
};

wire::LlcMessage roundTrip(const wire::LlcMessage& m) {
    auto decoded = wire::decodeLlc(wire::encodeLlc(m));
    if (!decoded) qFatal("decode: %s", decoded.error().toString().c_str());
    return decoded.value();
}

FlowRun runFlow(size_t serverRkeys, size_t clientRkeys) {
    FlowRun run;
    AddLinkFlow server(Side::server, 2000);
    AddLinkFlow client(Side::client, 2000);
    std::deque<wire::LlcMessage> toClient;
    std::deque<wire::LlcMessage> toServer;
    auto collect = [](const AddLinkActions& a, std::deque<wire::LlcMessage>& q, std::vector<wire::RkeyPair>& learned,
                      bool& active, std::optional<LinkEndpoint>& bringUp) {
        for (const auto& m : a.sendOnCurrent) q.push_back(roundTrip(m));
        if (a.sendOnNew) q.push_back(roundTrip(*a.sendOnNew));
        learned.insert(learned.end(), a.learnedRkeys.begin(), a.learnedRkeys.end());
        active = active || a.linkActive;
        if (a.bringUp) bringUp = a.bringUp;
        QVERIFY(!a.abandon);
    };
    collect(server.start(endpoint(1), 2, 77, rkeys(100, serverRkeys), 0), toClient, run.serverLearned, run.serverActive,
            run.serverBringUp);
    for (int step = 0; step < 100 && (!toClient.empty() || !toServer.empty()); ++step) {
        while (!toClient.empty()) {
            const wire::LlcMessage m = toClient.front();
            toClient.pop_front();
            AddLinkActions a;
            if (const auto* add = std::get_if<wire::LlcAddLink>(&m)) {
                a = client.onRequest(*add, endpoint(2), 88, rkeys(500, clientRkeys), 10);
            } else if (const auto* cont = std::get_if<wire::LlcAddLinkCont>(&m)) {
                ++run.contsFromServer;
                a = client.onCont(*cont, 10);
            } else if (const auto* confirm = std::get_if<wire::LlcConfirmLink>(&m)) {
                a = client.onConfirmLink(*confirm, 10);
            }
            collect(a, toServer, run.clientLearned, run.clientActive, run.clientBringUp);
        }
        while (!toServer.empty()) {
            const wire::LlcMessage m = toServer.front();
            toServer.pop_front();
            AddLinkActions a;
            if (const auto* add = std::get_if<wire::LlcAddLink>(&m)) {
                a = server.onResponse(*add, 20);
            } else if (const auto* cont = std::get_if<wire::LlcAddLinkCont>(&m)) {
                ++run.contsFromClient;
                a = server.onCont(*cont, 20);
            } else if (const auto* confirm = std::get_if<wire::LlcConfirmLink>(&m)) {
                a = server.onConfirmLink(*confirm, 20);
            }
            collect(a, toClient, run.serverLearned, run.serverActive, run.serverBringUp);
        }
    }
    return run;
}

}  // namespace

class TestCoreMultiLink : public QObject {
    Q_OBJECT
private slots:
    void addLinkFlowExchangesEveryRkey_data() {
        QTest::addColumn<int>("serverRkeys");
        QTest::addColumn<int>("clientRkeys");
        QTest::newRow("none") << 0 << 0;
        QTest::newRow("one each") << 1 << 1;
        QTest::newRow("server more") << 5 << 1;
        QTest::newRow("client more") << 2 << 7;
        QTest::newRow("many") << 40 << 33;
    }
    void addLinkFlowExchangesEveryRkey() {
        QFETCH(int, serverRkeys);
        QFETCH(int, clientRkeys);
        const FlowRun run = runFlow(size_t(serverRkeys), size_t(clientRkeys));
        QVERIFY(run.serverActive);
        QVERIFY(run.clientActive);
        QCOMPARE(run.clientLearned, rkeys(100, size_t(serverRkeys)));
        QCOMPARE(run.serverLearned, rkeys(500, size_t(clientRkeys)));
        // Lockstep: both send the same number of ADD_LINK_CONTs, at least one.
        const int rounds = std::max({1, (serverRkeys + 1) / 2, (clientRkeys + 1) / 2});
        QCOMPARE(run.contsFromServer, rounds);
        QCOMPARE(run.contsFromClient, rounds);
        // Each side connects its new QP to the other's announced end.
        QCOMPARE(*run.clientBringUp, endpoint(1));
        QCOMPARE(*run.serverBringUp, endpoint(2));
    }

    void addLinkMessagesCarryTheNewLink() {
        AddLinkFlow server(Side::server, 2000);
        AddLinkActions a = server.start(endpoint(1), 2, 77, {}, 0);
        QCOMPARE(a.sendOnCurrent.size(), size_t(1));
        const auto& req = std::get<wire::LlcAddLink>(a.sendOnCurrent[0]);
        QVERIFY(!req.response);
        QCOMPARE(int(req.linkNumber), 2);
        QCOMPARE(req.qpn, endpoint(1).qpn);
        QCOMPARE(req.initialPsn, endpoint(1).psn);
        QCOMPARE(req.senderGid, endpoint(1).gid);
        QCOMPARE(server.state(), AddLinkState::awaitAddLinkResp);
        QCOMPARE(server.deadlineMs(), 2000ull);
        // A second start while running does nothing.
        QVERIFY(server.start(endpoint(1), 3, 77, {}, 0).sendOnCurrent.empty());
        // The CONFIRM_LINK on the new link names it and announces two links.
        AddLinkFlow client(Side::client, 2000);
        a = client.onRequest(req, endpoint(2), 88, {}, 0);
        const auto& resp = std::get<wire::LlcAddLink>(a.sendOnCurrent[0]);
        QVERIFY(resp.response);
        QVERIFY(!resp.rejected);
        a = server.onResponse(resp, 5);
        a = client.onCont(std::get<wire::LlcAddLinkCont>(a.sendOnCurrent[0]), 6);
        QCOMPARE(client.state(), AddLinkState::awaitConfirmLink);
        a = server.onCont(std::get<wire::LlcAddLinkCont>(a.sendOnCurrent[0]), 7);
        QVERIFY(a.sendOnCurrent.empty());
        QVERIFY(a.sendOnNew);
        const auto& confirm = std::get<wire::LlcConfirmLink>(*a.sendOnNew);
        QVERIFY(!confirm.response);
        QCOMPARE(int(confirm.linkNumber), 2);
        QCOMPARE(int(confirm.maxLinks), 2);
        QCOMPARE(confirm.linkUid, 77u);
        QCOMPARE(server.state(), AddLinkState::awaitConfirmLinkResp);
        // A CONFIRM_LINK for another link is not ours.
        wire::LlcConfirmLink other = confirm;
        other.linkNumber = 3;
        QVERIFY(!client.onConfirmLink(other, 8).linkActive);
    }

    void addLinkRejectedByThePeerAbandonsTheLink() {
        AddLinkFlow server(Side::server, 2000);
        server.start(endpoint(1), 2, 77, rkeys(1, 3), 0);
        wire::LlcAddLink reject;
        reject.response = true;
        reject.rejected = true;
        reject.rejectReason = wire::kAddLinkRejectNoAltPath;
        reject.linkNumber = 2;
        // Through the codec: the reject flag and reason survive.
        const AddLinkActions a = server.onResponse(std::get<wire::LlcAddLink>(roundTrip(reject)), 10);
        QVERIFY(a.abandon);
        QVERIFY(a.rejectedByPeer);
        QVERIFY(!a.bringUp);
        QCOMPARE(server.state(), AddLinkState::failed);
        QCOMPARE(server.deadlineMs(), UINT64_MAX);
    }

    void addLinkTimesOutAtEveryStep() {
        AddLinkFlow server(Side::server, 2000);
        server.start(endpoint(1), 2, 77, {}, 1000);
        QVERIFY(!server.poll(2999).abandon);
        QVERIFY(server.poll(3000).abandon);
        QCOMPARE(server.state(), AddLinkState::failed);
        // The client waiting for CONFIRM_LINK gives up too.
        AddLinkFlow client(Side::client, 500);
        wire::LlcAddLink req;
        req.linkNumber = 2;
        client.onRequest(req, endpoint(2), 88, {}, 0);
        wire::LlcAddLinkCont cont;
        cont.linkNumber = 2;
        client.onCont(cont, 100);
        QCOMPARE(client.state(), AddLinkState::awaitConfirmLink);
        QVERIFY(!client.poll(599).abandon);
        QVERIFY(client.poll(600).abandon);
        // A cont for another link number is a protocol error for the flow.
        AddLinkFlow c2(Side::client, 500);
        c2.onRequest(req, endpoint(2), 88, {}, 0);
        cont.linkNumber = 9;
        QVERIFY(c2.onCont(cont, 1).abandon);
    }

    void rkeyTableLearnsConfirmsAndDeletes() {
        RkeyTable table;
        table.learn(wire::RkeyPair{10, 20, 0x5000});
        QCOMPARE(*table.onOtherLink(10), (RmbOnLink{20, 0x5000}));
        QVERIFY(!table.onOtherLink(20));
        // CONFIRM_RKEY: entry 0 = the carrying link, entry 1 = link 2.
        const wire::LlcConfirmRkey req = makeConfirmRkey(RmbOnLink{30, 0x6000}, 2, RmbOnLink{31, 0x7000});
        const auto decoded = std::get<wire::LlcConfirmRkey>(roundTrip(req));
        QCOMPARE(int(decoded.entries[0].linkId), 1);  // one further entry
        wire::LlcConfirmRkey resp = table.onConfirmRkey(decoded, 2);
        QVERIFY(resp.response);
        QVERIFY(!resp.negative);
        QCOMPARE(*table.onOtherLink(30), (RmbOnLink{31, 0x7000}));
        // Naming a link we do not have is answered negatively and learns nothing.
        resp = table.onConfirmRkey(makeConfirmRkey(RmbOnLink{40, 1}, 3, RmbOnLink{41, 2}), 2);
        QVERIFY(resp.negative);
        QVERIFY(!table.onOtherLink(40));
        QCOMPARE(table.size(), size_t(2));
        // DELETE_RKEY: known rkeys go, unknown ones are flagged per entry.
        const std::vector<uint32_t> gone = {30, 99, 10};
        const auto dels = makeDeleteRkeys(gone);
        QCOMPARE(dels.size(), size_t(1));
        const wire::LlcDeleteRkey delResp = table.onDeleteRkey(std::get<wire::LlcDeleteRkey>(roundTrip(dels[0])));
        QVERIFY(delResp.response);
        QCOMPARE(int(delResp.errorMask), 0x40);  // entry 1 (rkey 99) unknown
        QCOMPARE(deletedRkeyCount(delResp), 2u);
        QCOMPARE(table.size(), size_t(0));
        // More than 8 rkeys take several messages.
        std::vector<uint32_t> many(19);
        for (size_t i = 0; i < many.size(); ++i) many[i] = uint32_t(i + 1);
        const auto split = makeDeleteRkeys(many);
        QCOMPARE(split.size(), size_t(3));
        QCOMPARE(int(split[0].numRkeys), 8);
        QCOMPARE(int(split[2].numRkeys), 3);
        QCOMPARE(split[2].rkeys[2], 19u);
    }

    // The peer's rkey requests are counted as they come and as they are
    // answered, on one link (LinkCore answers) and on two (the rkey table
    // does); our own requests' responses and other messages are not. A
    // kernel peer sends one DELETE_RKEY per connection it frees, with one
    // rkey (smc_llc_send_delete_rkey), and waits 2 s for the answer.
    void peerRkeyRequestsAreCounted() {
        smcr::EngineStats stats;
        LinkCore single(1, LinkTimers{}, 0);
        single.activate(0);
        wire::LlcDeleteRkey del;
        del.numRkeys = 1;
        del.rkeys[0] = 0x1234;
        const wire::LlcMessage delReq = roundTrip(del);
        LinkActions a = single.onLlc(delReq, 1);
        QVERIFY(a.send);
        const auto& delAnswer = std::get<wire::LlcDeleteRkey>(*a.send);
        QVERIFY(delAnswer.response);
        QCOMPARE(int(delAnswer.errorMask), 0);
        QCOMPARE(delAnswer.rkeys[0], 0x1234u);
        countPeerRkeyRequest(delReq, true, stats);
        wire::LlcConfirmRkey confirm;
        confirm.entries[0] = wire::LinkRkey{0, 0x99, 0x8000};  // one link: no further entries
        const wire::LlcMessage confirmReq = roundTrip(confirm);
        a = single.onLlc(confirmReq, 2);
        QVERIFY(std::get<wire::LlcConfirmRkey>(*a.send).response);
        countPeerRkeyRequest(confirmReq, true, stats);
        // Two links: the table answers; a response that could not be posted is received, not answered.
        RkeyTable table;
        countPeerRkeyRequest(table.onDeleteRkey(std::get<wire::LlcDeleteRkey>(delReq)), true, stats);  // a response
        countPeerRkeyRequest(delReq, false, stats);
        countPeerRkeyRequest(makeConfirmRkey(RmbOnLink{30, 1}, 2, RmbOnLink{31, 2}), true, stats);
        countPeerRkeyRequest(wire::LlcTestLink{}, true, stats);  // not an rkey request
        QCOMPARE(stats.peerDeleteRkeys, 2ull);
        QCOMPARE(stats.peerDeleteRkeysAnswered, 1ull);
        QCOMPARE(stats.peerConfirmRkeys, 2ull);
        QCOMPARE(stats.peerConfirmRkeysAnswered, 2ull);
        QCOMPARE(stats.rkeysDeleted, 0ull);  // our own requests' count, untouched
        bool exported = false;
        for (const auto& [name, value] : stats.flatten()) {
            if (name == "smcr.delete_rkey_rcvd") exported = value == 2;
        }
        QVERIFY(exported);
    }

    void linkLossPlans() {
        const LinkSetView two{1, 2, true};
        // Primary lost with an active standby: failover, peer told on the survivor.
        LinkLossPlan p = planLinkLoss(two, 1, wire::DeleteLinkReason::lostPath, nullptr);
        QCOMPARE(p.kind, LinkLossKind::failover);
        QVERIFY(p.sendDeleteLink);
        QVERIFY(!p.deleteLink.response);
        QVERIFY(!p.deleteLink.allLinks);
        QCOMPARE(int(p.deleteLink.linkNumber), 1);
        QCOMPARE(p.deleteLink.reason, static_cast<uint32_t>(wire::DeleteLinkReason::lostPath));
        // Standby lost: dropped, peer told.
        p = planLinkLoss(two, 2, wire::DeleteLinkReason::lostPath, nullptr);
        QCOMPARE(p.kind, LinkLossKind::dropStandby);
        QCOMPARE(int(p.deleteLink.linkNumber), 2);
        // The standby is still being added: no failover onto it.
        p = planLinkLoss(LinkSetView{1, 2, false}, 1, wire::DeleteLinkReason::lostPath, nullptr);
        QCOMPARE(p.kind, LinkLossKind::terminateGroup);
        QVERIFY(!p.sendDeleteLink);
        // One link only.
        p = planLinkLoss(LinkSetView{1, 0, false}, 1, wire::DeleteLinkReason::lostPath, nullptr);
        QCOMPARE(p.kind, LinkLossKind::terminateGroup);
        // The peer's DELETE_LINK is answered with a response.
        wire::LlcDeleteLink req;
        req.linkNumber = 1;
        req.reason = static_cast<uint32_t>(wire::DeleteLinkReason::lostPath);
        p = planLinkLoss(two, 1, wire::DeleteLinkReason::lostPath, &req);
        QCOMPARE(p.kind, LinkLossKind::failover);
        QVERIFY(p.deleteLink.response);
        QCOMPARE(int(p.deleteLink.linkNumber), 1);
        // ... also for a link already gone (both sides saw the loss).
        p = planLinkLoss(LinkSetView{2, 0, false}, 1, wire::DeleteLinkReason::lostPath, &req);
        QCOMPARE(p.kind, LinkLossKind::none);
        QVERIFY(p.sendDeleteLink);
        QVERIFY(p.deleteLink.response);
        QCOMPARE(p.deleteLink.reason, static_cast<uint32_t>(wire::DeleteLinkReason::unknownLink));
        // A loss we detect on a link that is already gone: nothing.
        p = planLinkLoss(LinkSetView{2, 0, false}, 1, wire::DeleteLinkReason::lostPath, nullptr);
        QCOMPARE(p.kind, LinkLossKind::none);
        QVERIFY(!p.sendDeleteLink);
    }

    void failoverValidationSeqno() {
        QCOMPARE(checkFailoverValidation(5, 5), CdcVerdict::failoverChecked);
        QCOMPARE(checkFailoverValidation(5, 3), CdcVerdict::failoverChecked);
        QCOMPARE(checkFailoverValidation(5, 6), CdcVerdict::failoverLost);
        QCOMPARE(checkFailoverValidation(0, 0), CdcVerdict::failoverChecked);
        // 16-bit serial order across the wrap.
        QCOMPARE(checkFailoverValidation(2, 0xFFFE), CdcVerdict::failoverChecked);
        QCOMPARE(checkFailoverValidation(0xFFFE, 2), CdcVerdict::failoverLost);
    }

    // A sender with CDCs in flight when its link dies: it rewinds to the last
    // completed CDC, validates, re-sends; the receiver ends up with every byte
    // once, whether or not the unconfirmed CDCs reached it.
    void failoverResendsFromTheLastConfirmedCursor_data() {
        QTest::addColumn<int>("delivered");  // in-flight CDCs that reached the receiver
        QTest::newRow("none delivered") << 0;
        QTest::newRow("one delivered") << 1;
        QTest::newRow("all delivered") << 2;
    }
    void failoverResendsFromTheLastConfirmedCursor() {
        QFETCH(int, delivered);
        ConnectionParams pa{1, 2, 64 * 1024, 16 * 1024, 16 * 1024};
        ConnectionParams pb{2, 1, 64 * 1024, 16 * 1024, 16 * 1024};
        ConnectionCore a(pa);
        ConnectionCore b(pb);
        // Three CDCs of 4000 bytes each; only the first completes.
        std::vector<CdcInfo> cdcs;
        for (int i = 0; i < 3; ++i) {
            a.onAppSend(committed(4000));
            cdcs.push_back(a.buildDataCdc(a.tx().plan(4000)));
        }
        a.onCdcSendComplete();
        QCOMPARE(b.onCdc(cdcs[0]).newBytes, 4000u);
        for (int i = 1; i <= delivered; ++i) QCOMPARE(b.onCdc(cdcs[size_t(i)]).verdict, CdcVerdict::accepted);
        const uint64_t seenByB = b.rx().availableBytes();

        const CdcInfo validation = a.beginFailover();
        QVERIFY(validation.prodFlags.failoverValidation);
        QCOMPARE(validation.seqno, cdcs[0].seqno);  // the last completed CDC
        QCOMPARE(a.tx().sentOffset(), 4000ull);
        QCOMPARE(a.tx().unsentBytes(), 8000ull);
        QCOMPARE(b.onCdc(validation).verdict, CdcVerdict::failoverChecked);
        QCOMPARE(b.rx().availableBytes(), seenByB);  // the validation moves nothing

        // The re-send covers everything unconfirmed in one CDC with a newer seqno.
        const TxPlan again = a.tx().plan();
        QCOMPARE(again.bytes, 8000u);
        QCOMPARE(again.writes[0].remoteOffset, 4000u);
        const CdcInfo resend = a.buildDataCdc(again);
        QVERIFY(int16_t(uint16_t(resend.seqno - cdcs[2].seqno)) > 0);
        const CdcRxResult r = b.onCdc(resend);
        QCOMPARE(r.verdict, CdcVerdict::accepted);
        QCOMPARE(r.newBytes, uint32_t(12000 - seenByB));
        QCOMPARE(b.rx().availableBytes(), 12000ull);  // not one byte twice
        // The validation CDC completes like a CDC; then the re-send.
        QCOMPARE(a.tx().pendingCdcCount(), 2u);
        a.onCdcSendComplete();
        a.onCdcSendComplete();
        QCOMPARE(a.tx().sndbufFreeBytes(), 64u * 1024u);
    }

    void failoverSkipsWhatThePeerAlreadyConsumed() {
        ConnectionCore a(ConnectionParams{1, 2, 64 * 1024, 16 * 1024, 16 * 1024});
        ConnectionCore b(ConnectionParams{2, 1, 64 * 1024, 16 * 1024, 16 * 1024});
        a.onAppSend(committed(6000));
        const CdcInfo c1 = a.buildDataCdc(a.tx().plan());
        QCOMPARE(b.onCdc(c1).newBytes, 6000u);
        // B reads everything and says so, but A never saw its CDC complete.
        b.onAppRead(6000, WindowUpdateLimit::max);
        const CdcInfo update = b.buildControlCdc();
        a.onCdc(update);
        QCOMPARE(a.tx().inFlightBytes(), 0ull);
        const CdcInfo v = a.beginFailover();
        QCOMPARE(v.seqno, uint16_t(c1.seqno - 1));  // nothing completed
        QCOMPARE(b.onCdc(v).verdict, CdcVerdict::failoverChecked);
        QCOMPARE(a.tx().unsentBytes(), 0ull);  // nothing to re-send
        QCOMPARE(a.tx().sentOffset(), 6000ull);
        // A validation naming a CDC the receiver never saw aborts.
        ConnectionCore fresh(ConnectionParams{2, 1, 64 * 1024, 16 * 1024, 16 * 1024});
        CdcInfo lost = v;
        lost.seqno = 3;
        QCOMPARE(fresh.onCdc(lost).verdict, CdcVerdict::failoverLost);
    }
};

QTEST_APPLESS_MAIN(TestCoreMultiLink)
#include "test_core_multilink.moc"
