// One link of a link group, as the kernel's struct smc_link in
// lgr->lnk[]: its RC QP, receive and send buffers, send slots, the LLC
// state machine (LinkCore), LLC messages and connections waiting for a
// slot, RQ credits and RX backlog, and the send-completion watchdog. The
// link the CLC handshake makes and one added by ADD_LINK are the same type,
// so every per-link operation (bring-up, receive reposting, LLC posting,
// credits) exists once, here or in the shell functions that take a Link
// (engine_lgr.cpp, engine_credits.cpp, engine_rx.cpp).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>

#include <smcr/fabric.h>
#include <smcr/result.h>
#include <smcr/wire/llc.h>

#include "core/link/add_link_flow.h"
#include "core/link/credits.h"
#include "core/link/link_core.h"
#include "core/link/tx_watchdog.h"
#include "core/shell/rx_flow.h"

namespace smcr::core {

class Connection;

// What a new link is made from (Link::create).
struct LinkSetup {
    fabric::ProtectionDomain* pd = nullptr;
    fabric::CompletionQueue* sendCq = nullptr;
    fabric::CompletionQueue* recvCq = nullptr;
    const fabric::DeviceLimits* limits = nullptr;
    const fabric::PortInfo* port = nullptr;
    wire::IbMtu announcedMtu = wire::IbMtu::mtu1024;  // the MTU we announce (our port's)
    uint8_t linkId = 0;
    uint32_t sendSlots = 0;  // CDC/LLC SENDs that may be outstanding
    uint32_t recvWr = 0;
    LinkTimers timers;
    uint64_t nowMs = 0;
};

struct Link {
    // The QP (in INIT on the setup's port), its buffers, and every receive
    // WQE posted: receives are up before the peer can send (the server's
    // CONFIRM_LINK follows its Confirm at once; ADD_LINK's CONFIRM_LINK
    // follows the bring-up).
    static Result<std::unique_ptr<Link>> create(const LinkSetup& setup);

    uint8_t portNum = 0;
    LinkEndpoint local;  // what we announce (CLC Accept/Confirm, ADD_LINK)
    wire::Mac peerMac{};
    uint32_t peerQpn = 0;
    fabric::PathMtu mtu = fabric::PathMtu::mtu1024;  // negotiated at bring-up
    std::unique_ptr<fabric::QueuePair> qp;
    std::unique_ptr<fabric::MemoryRegion> recvBuffers;  // recvWr slots of 48 bytes
    uint32_t recvWr = 0;
    uint32_t sendSlots = 0;
    uint32_t sendSlotsUsed = 0;
    bool inlineSends = true;
    std::unique_ptr<fabric::MemoryRegion> sendBuffers;  // when SENDs cannot go inline
    uint32_t nextSendBuffer = 0;
    std::unique_ptr<LinkCore> core;                     // LLC state, TEST_LINK (link_core.h)
    std::deque<wire::LlcBytes> pendingLlc;              // LLC messages waiting for a slot or credit
    std::deque<std::weak_ptr<Connection>> slotWaiters;  // connections waiting for a slot or credit
    LinkRxFlow flow;                                    // RQ credits and RX backlog (rx_flow.h)
    TxWatchdog txWatchdog;                              // send completions that stopped coming (tx_watchdog.h)

    uint8_t linkId() const { return core->linkId(); }
    bool active() const { return core && core->state() == LinkState::active; }
    // A SEND of this kind may be posted now: a free slot and, with RQ
    // credits, a credit (an ANNOUNCE_CREDITS may use the one kept back).
    bool canSend(CreditSendKind kind = CreditSendKind::message) const {
        return sendSlotsUsed < sendSlots && flow.credits.canSend(kind);
    }
    // What keeps a CDC from being posted now: nothing, no RQ credit (the
    // peer's credits bring it) or no free send slot (a send completion does).
    enum class CdcWait : uint8_t { none = 0, credit, slot };
    CdcWait cdcWait() const {
        if (!flow.credits.canSend(CreditSendKind::message)) return CdcWait::credit;
        return sendSlotsUsed < sendSlots ? CdcWait::none : CdcWait::slot;
    }
    // Queued LLC messages or connections, or owed credits with every slot
    // in use: the next send completion moves something.
    bool awaitsSendCompletion() const {
        return !slotWaiters.empty() || !pendingLlc.empty() ||
               (sendSlotsUsed >= sendSlots && flow.credits.announceDue());
    }

    // The QP to RTR and RTS towards the peer with the kernel's QP
    // attributes; pathMtu is the smaller of both sides'.
    Status bringUp(const LinkEndpoint& peer, fabric::PathMtu pathMtu);
    // Posts receive WQE `slot` (its 48-byte buffer).
    Status postRecv(uint32_t slot);
    // The 44 bytes of a CDC or LLC message as the SEND's one SGE: inline
    // when the QP takes it, otherwise copied into the next send buffer.
    void attachMessage(fabric::SendWr& wr, const uint8_t* bytes);
    // An LLC message: posted (a signaled, solicited SEND) when canSend(kind),
    // otherwise queued in pendingLlc. True when posted (a slot taken).
    Result<bool> postLlc(const wire::LlcBytes& bytes, CreditSendKind kind);
    // A CDC or LLC SEND completed: its slot is free and the link is alive.
    void onSendCompleted() {
        if (sendSlotsUsed > 0) --sendSlotsUsed;
        txWatchdog.onCompletion();
    }
    // RQ credits negotiated for this link (CLC byte 51, ADD_LINK byte 36).
    void enableCredits(uint8_t peerInitCredits) { flow.credits.enable(recvWr, peerInitCredits); }
    // A CDC SEND spends one RQ credit (the caller checked canSend) and
    // carries the owed ones back: its byte 26 (0 without credits).
    uint8_t spendCdcCredit();
    // Credits the peer granted (CDC byte 26, ANNOUNCE_CREDITS); false when
    // the link has none negotiated (the caller decides what that means).
    bool onPeerCredits(uint8_t credits);
    // The owed credits as an ANNOUNCE_CREDITS, when they are due and a send
    // slot is free (counted as announced).
    std::optional<wire::LlcAnnounceCredits> takeCreditAnnouncement();
};

}  // namespace smcr::core
