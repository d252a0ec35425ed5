#include "stream_test.h"

#include <algorithm>
#include <vector>

namespace smclab::cli {

namespace {

struct Request {
    uint32_t test = 0;
    uint32_t msgSize = 0;
    uint64_t durationMs = 0;
};

struct Reply {
    uint64_t bytes = 0;
    uint64_t elapsedNs = 0;
    uint64_t counterTextBytes = 0;
};

constexpr uint64_t kMaxCounterText = 1 << 20;

}  // namespace

const char* streamTestName(StreamTest test) {
    switch (test) {
        case StreamTest::bw: return "tcp_bw";
        case StreamTest::lat: return "tcp_lat";
        case StreamTest::invalid: break;
    }
    return "invalid";
}

void serveStreamConnection(BenchConn& conn, const smcr::Engine* engine) {
    Request req;
    if (!conn.recvAll(&req, sizeof req)) return;
    const CounterMap before = engine != nullptr ? counterSnapshot(*engine) : CounterMap{};
    std::vector<uint8_t> buf(std::max<uint32_t>(req.msgSize, 1));
    Reply reply;
    uint64_t start = 0;
    if (req.test == static_cast<uint32_t>(StreamTest::bw)) {
        // qperf's receiver: full reads of msg_size each, counted per message.
        // The read size decides how much one recv consumes, and with it how
        // often the consumer cursor crosses the window-update limit (seed
        // 000 patch 5's silly window at 2-8 KiB needs msg_size reads).
        while (req.msgSize > 0 && conn.recvAll(buf.data(), req.msgSize)) {
            if (start == 0) start = nowNs();
            reply.bytes += req.msgSize;
        }
    } else {
        start = nowNs();
        while (req.msgSize > 0 && conn.recvAll(buf.data(), req.msgSize)) {
            reply.bytes += req.msgSize;
            if (!conn.sendAll(buf.data(), req.msgSize)) break;
        }
    }
    reply.elapsedNs = start == 0 ? 0 : nowNs() - start;
    const std::string text = engine != nullptr ? encodeCounters(counterDelta(counterSnapshot(*engine), before))
                                               : std::string();
    reply.counterTextBytes = text.size();
    if (conn.sendAll(&reply, sizeof reply) && !text.empty()) conn.sendAll(text.data(), text.size());
}

StreamResult runStreamTest(BenchConn& conn, const smcr::Engine* engine, StreamTest test, uint32_t msgSize,
                           uint64_t durationMs) {
    StreamResult r;
    const CounterMap before = engine != nullptr ? counterSnapshot(*engine) : CounterMap{};
    const Request req{static_cast<uint32_t>(test), msgSize, durationMs};
    if (!conn.sendAll(&req, sizeof req)) return r;
    std::vector<uint8_t> buf(msgSize, 0xA5);
    const uint64_t end = nowNs() + durationMs * 1000000;
    std::vector<uint32_t> rttNs;
    if (test == StreamTest::bw) {
        while (nowNs() < end) {
            if (!conn.sendAll(buf.data(), msgSize)) return r;
        }
    } else {
        rttNs.reserve(1 << 20);
        while (nowNs() < end) {
            const uint64_t t0 = nowNs();
            if (!conn.sendAll(buf.data(), msgSize) || !conn.recvAll(buf.data(), msgSize)) return r;
            rttNs.push_back(static_cast<uint32_t>(std::min<uint64_t>(nowNs() - t0, UINT32_MAX)));
        }
    }
    conn.shutdownWrite();
    Reply reply;
    if (!conn.recvAll(&reply, sizeof reply) || reply.counterTextBytes > kMaxCounterText) return r;
    std::string text(reply.counterTextBytes, '\0');
    if (!text.empty() && !conn.recvAll(text.data(), text.size())) return r;
    r.serverCounters = decodeCounters(text);
    if (engine != nullptr) r.clientCounters = counterDelta(counterSnapshot(*engine), before);
    r.messages = msgSize > 0 ? reply.bytes / msgSize : 0;
    if (test == StreamTest::bw) {
        if (reply.elapsedNs == 0) return r;
        r.bwMBs = static_cast<double>(reply.bytes) * 1e3 / static_cast<double>(reply.elapsedNs);  // B/ns*1e9/1e6
        r.ok = true;
        return r;
    }
    if (rttNs.empty()) return r;
    double sum = 0;
    for (uint32_t v : rttNs) sum += v;
    std::sort(rttNs.begin(), rttNs.end());
    r.latMeanUs = sum / static_cast<double>(rttNs.size()) / 2000.0;
    r.latP50Us = rttNs[rttNs.size() / 2] / 2000.0;
    r.latP99Us = rttNs[std::min(rttNs.size() - 1, rttNs.size() * 99 / 100)] / 2000.0;
    r.ok = true;
    return r;
}

}  // namespace smclab::cli
