// Two ConnectionCores back to back with real byte rings and no shell: each
// event goes into a core and its actions are carried out at once, the way
// any executor of the machine would (copy, post, deliver, wake). A posted
// CDC is delivered at once, after its RDMA WRITEs (RC ordering); its send
// completion waits for completeSends(), so what a completion releases
// (sndbuf space, autocorked data) can be watched. No threads, no fabric.
#pragma once

#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/connection/connection_core.h"

namespace smcr::core::testing {

struct CorePairSettings {
    uint64_t autocorkingSize = 0;
    bool txDeferToOwner = false;
    WindowUpdateLimit windowLimit = WindowUpdateLimit::max;
};

class CorePair {
public:
    struct Side {
        explicit Side(const ConnectionParams& p) : core(p), sndbuf(p.sndbufBytes), rmbe(p.rmbeBytes) {}
        ConnectionCore core;
        std::vector<uint8_t> sndbuf;
        std::vector<uint8_t> rmbe;
        uint32_t outstanding = 0;  // CDCs posted, not yet completed
        uint64_t cdcsSent = 0;
        uint64_t dataCdcs = 0;
        uint64_t rdmaWrites = 0;
    };

    // Side 0 and side 1; each side's RMBE is what the other writes into.
    CorePair(uint32_t sndbufBytes, uint32_t rmbeBytes, const CorePairSettings& settings = {})
        : m_settings(settings),
          m_sides{Side(ConnectionParams{11, 22, sndbufBytes, rmbeBytes, rmbeBytes}),
                  Side(ConnectionParams{22, 11, sndbufBytes, rmbeBytes, rmbeBytes})} {}

    Side& side(int i) { return m_sides[static_cast<size_t>(i)]; }
    ConnectionCore& core(int i) { return side(i).core; }

    // The application of `from` sends: copies what fits into the sndbuf and
    // hands the core the event. Returns the bytes taken.
    uint32_t send(int from, const uint8_t* data, uint32_t len, const SendHints& hints = {}) {
        Side& s = side(from);
        const ConnTx& tx = s.core.tx();
        const uint32_t n = std::min(len, tx.sndbufFreeBytes());
        if (n == 0) return 0;
        const RingSpans spans = tx.reserve(n);
        uint32_t done = 0;
        for (uint8_t i = 0; i < spans.count; ++i) {
            std::memcpy(s.sndbuf.data() + spans.spans[i].offset, data + done, spans.spans[i].lengthBytes);
            done += spans.spans[i].lengthBytes;
        }
        AppSendEvent e;
        e.committedBytes = n;
        e.hints = hints;
        e.autocorkingSize = m_settings.autocorkingSize;
        const AppSendActions a = s.core.onAppSend(e);
        if (a.push) push(from, PushOrigin::app);
        return n;
    }

    // The application of `at` reads up to len bytes.
    uint32_t read(int at, uint8_t* out, uint32_t len) {
        Side& s = side(at);
        const auto n = static_cast<uint32_t>(std::min<uint64_t>(len, s.core.rx().availableBytes()));
        const RingSpans spans = s.core.rx().readSpans(0, n);
        uint32_t done = 0;
        for (uint8_t i = 0; i < spans.count; ++i) {
            std::memcpy(out + done, s.rmbe.data() + spans.spans[i].offset, spans.spans[i].lengthBytes);
            done += spans.spans[i].lengthBytes;
        }
        if (n > 0 && s.core.onAppRead(n, m_settings.windowLimit)) push(at, PushOrigin::app);
        return n;
    }

    // The ACKs of every CDC `at` posted arrive, oldest first.
    void completeSends(int at) {
        Side& s = side(at);
        while (s.outstanding > 0) {
            --s.outstanding;
            if (s.core.onCdcSendComplete()) push(at, PushOrigin::completion);
        }
    }

    // An application thread of `at` enters or leaves its socket.
    void enter(int at) { core(at).enterOwner(); }
    void leave(int at) {
        if (core(at).leaveOwner()) push(at, PushOrigin::owner);
    }

    void push(int at, PushOrigin origin) {
        if (!core(at).startPush(origin, m_settings.txDeferToOwner)) return;
        do {
            flush(at);
        } while (core(at).pushAgain(origin));
    }

private:
    void flush(int at) {
        Side& s = side(at);
        for (;;) {
            const CdcStep step = s.core.nextCdc({.linkCanPost = true});
            if (step.kind == CdcStepKind::none) return;
            if (step.kind == CdcStepKind::blocked) throw std::logic_error("blocked although the link can post");
            if (step.kind == CdcStepKind::data) writeToPeer(at, step.plan);
            ++s.outstanding;
            ++s.cdcsSent;
            deliver(1 - at, step.cdc);
            if (step.kind == CdcStepKind::control) return;
        }
    }

    void writeToPeer(int at, const TxPlan& plan) {
        Side& s = side(at);
        Side& peer = side(1 - at);
        ++s.dataCdcs;
        for (uint8_t w = 0; w < plan.writeCount; ++w) {
            const RdmaWritePlan& wr = plan.writes[w];
            uint32_t dst = wr.remoteOffset;
            for (uint8_t i = 0; i < wr.source.count; ++i) {
                std::memcpy(peer.rmbe.data() + dst, s.sndbuf.data() + wr.source.spans[i].offset,
                            wr.source.spans[i].lengthBytes);
                dst += wr.source.spans[i].lengthBytes;
            }
            if (dst != wr.remoteOffset + wr.lengthBytes) throw std::logic_error("SGE lengths do not add up");
            ++s.rdmaWrites;
        }
    }

    void deliver(int to, const CdcInfo& cdc) {
        const CdcRxResult r = core(to).onCdc(cdc, m_settings.windowLimit);
        if (r.verdict != CdcVerdict::accepted) throw std::logic_error("a CDC of the pair was not accepted");
        if (r.push) push(to, PushOrigin::cdcReceived);
    }

    CorePairSettings m_settings;
    std::vector<Side> m_sides;
};

}  // namespace smcr::core::testing
