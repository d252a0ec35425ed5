// ib_write_bw over the fabric interface: the client keeps up to kTxDepth
// RDMA WRITEs of one size in flight into the same remote buffer, signals
// every 100th (perftest's CQ moderation); the server only keeps its region
// registered, as a one-sided write needs nothing more.
#include <algorithm>
#include <vector>

#include "bench_pair.h"

namespace smcr::fabric::bench {

namespace {

constexpr uint32_t kCqModeration = 100;

}  // namespace

Result<std::vector<BandwidthRow>> runBandwidth(const Options& options) {
    const std::vector<uint32_t> sizes = options.sizes.empty() ? defaultSizes() : options.sizes;
    const uint32_t maxBytes = *std::max_element(sizes.begin(), sizes.end());
    std::vector<BandwidthRow> rows;

    auto server = [&](int ctl) -> int {
        FabricSide s;
        if (!s.setup(benchSideOptions(options, maxBytes)).ok()) return 2;
        if (!s.exchangeAndConnect(ctl, false).ok()) return 3;
        uint32_t done = 1;
        return recvAll(ctl, &done, sizeof done) && done == 0 ? 0 : 4;
    };
    auto client = [&](int ctl) -> Status {
        FabricSide s;
        if (auto st = s.setup(benchSideOptions(options, maxBytes)); !st) return st;
        Endpoint peer{};
        const Endpoint mine = s.local();
        if (!sendAll(ctl, &mine, sizeof mine) || !recvAll(ctl, &peer, sizeof peer)) {
            return fail(Errc::connectionAborted, "benchmark server went away");
        }
        if (auto st = s.connect(peer); !st) return st;
        for (uint32_t size : sizes) {
            const uint32_t iterations = options.bwIterations;
            uint64_t posted = 0;
            uint64_t completed = 0;     // WRs covered by polled completions
            std::vector<double> rates;  // GB/s between polls that returned completions
            const uint64_t start = monotonicNs();
            uint64_t lastCqeNs = start;
            uint64_t lastCovered = 0;
            while (completed < iterations) {
                while (posted < iterations && posted - completed < kTxDepth) {
                    SendWr wr;
                    wr.wrId = posted;
                    wr.opcode = WrOpcode::rdmaWrite;
                    wr.sg[0] = Sge{s.src->address(), size, s.src->lkey()};
                    wr.numSge = 1;
                    wr.remoteAddr = peer.vaddr;
                    wr.rkey = peer.rkey;
                    const bool signaled = (posted + 1) % kCqModeration == 0 || posted + 1 == iterations;
                    wr.flags = signaled ? SendFlags::signaled : SendFlags::none;
                    if (size <= s.qp->caps().maxInlineBytes) wr.flags = wr.flags | SendFlags::inlineData;
                    auto st = s.qp->postSend(wr);
                    if (!st) {
                        if (st.error().code == Errc::outOfResources) break;
                        return st;
                    }
                    ++posted;
                }
                WorkCompletion wc[16];
                auto n = s.sendCq->poll(wc);
                if (!n) return fail(n.error());
                for (size_t i = 0; i < n.value(); ++i) {
                    if (wc[i].status != WcStatus::success) {
                        return fail(Errc::connectionAborted,
                                    std::string("write_bw: completion ") + wcStatusName(wc[i].status));
                    }
                    completed = wc[i].wrId + 1;
                }
                if (n.value() > 0) {
                    // One interval per poll: completions polled together share
                    // a timestamp and would make a rate out of nothing.
                    const uint64_t now = monotonicNs();
                    const double seconds = static_cast<double>(now - lastCqeNs) / 1e9;
                    if (seconds > 0)
                        rates.push_back(static_cast<double>((completed - lastCovered) * size) / seconds / 1e9);
                    lastCqeNs = now;
                    lastCovered = completed;
                }
                if (n.value() == 0 && options.eventPoll && posted - completed >= kTxDepth) {
                    auto armed = s.sendCq->requestNotify(false);
                    if (!armed) return fail(armed.error());
                    if (armed.value() == NotifyResult::armed) {
                        auto ev = s.channel->getEvent(5000);
                        if (ev) ev.value()->ackEvents(1);
                    }
                }
            }
            const double seconds = static_cast<double>(monotonicNs() - start) / 1e9;
            BandwidthRow row;
            row.bytes = size;
            row.iterations = iterations;
            row.avgGBps = static_cast<double>(uint64_t{iterations} * size) / seconds / 1e9;
            std::sort(rates.begin(), rates.end());
            row.typicalGBps = rates.empty() ? row.avgGBps : rates[rates.size() / 2];
            row.peakGBps = rates.empty() ? row.avgGBps : std::max(rates.back(), row.avgGBps);
            row.msgRateMpps = iterations / seconds / 1e6;
            rows.push_back(row);
        }
        const uint32_t done = 0;
        sendAll(ctl, &done, sizeof done);
        return {};
    };
    if (auto st = runPair(options.pinCpus, server, client); !st) return fail(st.error());
    return rows;
}

}  // namespace smcr::fabric::bench
