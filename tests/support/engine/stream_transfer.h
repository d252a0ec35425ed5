// Pattern streams over a libsmcr socket, shared by the engine and integration
// tests and smcr_test_peer: send stream `seed` in random-sized messages,
// receive one and check every byte, or both at once (duplex); or an exact
// byte range of a stream each way, and its end. Errors come back as text so
// the peer process can print them and a test can QVERIFY2 them.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <sys/socket.h>

#include <smcr/socket.h>

#include "socket_io.h"
#include "stream_pattern.h"

namespace smclab::test {

// Sends `total` bytes of stream `seed` in messages of 1 B..maxMessageBytes;
// "" when all went out, else what failed.
inline std::string sendStream(smcr::Socket& s, uint64_t seed, uint64_t total, size_t maxMessageBytes = 1 << 20) {
    MessageSizes sizes(seed, maxMessageBytes);
    std::vector<uint8_t> buf(maxMessageBytes);
    uint64_t off = 0;
    while (off < total) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(sizes.next(), total - off));
        fillPattern(seed, off, buf.data(), n);
        if (!sendAll(s, buf.data(), n))
            return "send failed at byte " + std::to_string(off) + " of stream " + std::to_string(seed);
        off += n;
    }
    return "";
}

// Sends `len` bytes of stream `seed` from byte `offset` in 64 KiB pieces;
// "" when all went out, else where and why it failed.
inline std::string sendRange(smcr::Socket& s, uint64_t seed, uint64_t offset, uint64_t len) {
    std::vector<uint8_t> buf(64 * 1024);
    uint64_t done = 0;
    while (done < len) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), len - done));
        fillPattern(seed, offset + done, buf.data(), n);
        size_t put = 0;
        while (put < n) {
            auto w = s.send(buf.data() + put, n - put);
            if (!w) return "send at " + std::to_string(offset + done + put) + ": " + w.error().toString();
            put += w.value();
        }
        done += n;
    }
    return "";
}

// Receives exactly `len` bytes of stream `seed` from byte `offset`, checking
// each; "" when all arrived intact (EOF before them is an error).
inline std::string recvRange(smcr::Socket& s, uint64_t seed, uint64_t offset, uint64_t len) {
    std::vector<uint8_t> buf(64 * 1024);
    uint64_t done = 0;
    while (done < len) {
        const size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), len - done));
        auto r = s.recv(buf.data(), want);
        if (!r) return "recv at " + std::to_string(offset + done) + ": " + r.error().toString();
        if (r.value() == 0) return "EOF at " + std::to_string(offset + done);
        const size_t bad = checkPattern(seed, offset + done, buf.data(), r.value());
        if (bad != r.value()) return "wrong byte at " + std::to_string(offset + done + bad);
        done += r.value();
    }
    return "";
}

// The end of a stream: recv returns 0 (nothing more, nothing duplicated).
inline std::string expectEof(smcr::Socket& s) {
    uint8_t byte = 0;
    auto r = s.recv(&byte, 1);
    if (!r) return "recv at the end: " + r.error().toString();
    if (r.value() != 0) return "a byte beyond the end of the stream";
    return "";
}

struct ReceiveOptions {
    size_t maxMessageBytes = 1 << 20;
    // Called once when a third of the stream has arrived: a fault to inject
    // while the stream is busy.
    std::function<void()> atOneThird;
};

struct ReceiveRun {
    std::string error;  // "" when exactly the expected bytes arrived, all correct, then EOF
    uint64_t received = 0;
    int64_t stallMs = -1;  // longest gap between two receives after atOneThird ran
};

// Receives stream `seed` until EOF in reads of random size, checking every
// byte; `total` is the length the stream must have.
inline ReceiveRun receiveStream(smcr::Socket& s, uint64_t seed, uint64_t total, const ReceiveOptions& options = {}) {
    using Clock = std::chrono::steady_clock;
    ReceiveRun run;
    MessageSizes sizes(seed ^ 0x55, options.maxMessageBytes);
    std::vector<uint8_t> buf(options.maxMessageBytes);
    bool faulted = false;
    Clock::time_point last = Clock::now();
    for (;;) {
        auto r = s.recv(buf.data(), sizes.next());
        const Clock::time_point now = Clock::now();
        if (faulted) {
            run.stallMs = std::max<int64_t>(run.stallMs,
                                            std::chrono::duration_cast<std::chrono::milliseconds>(now - last).count());
        }
        last = now;
        if (!r) {
            run.error = "recv: " + r.error().toString();
            return run;
        }
        if (r.value() == 0) break;
        const size_t bad = checkPattern(seed, run.received, buf.data(), r.value());
        if (bad != r.value()) {
            run.error =
                "byte " + std::to_string(run.received + bad) + " of stream " + std::to_string(seed) + " is wrong";
            return run;
        }
        run.received += r.value();
        if (!faulted && options.atOneThird && run.received >= total / 3) {
            faulted = true;
            options.atOneThird();
            last = Clock::now();
        }
    }
    if (run.received != total) {
        run.error = "received " + std::to_string(run.received) + " bytes of stream " + std::to_string(seed) +
                    ", expected " + std::to_string(total);
    }
    return run;
}

struct DuplexRun {
    std::string sendError;  // "" when the stream went out and SHUT_WR succeeded
    ReceiveRun receive;
    // The first error, or "".
    std::string error() const { return sendError.empty() ? receive.error : sendError; }
};

// Both directions at once, `total` bytes each: a thread sends stream
// `sendSeed` and shuts the write side down, this thread receives stream
// `recvSeed` to EOF. The client of smcr_test_peer's duplex mode passes
// seed+1 and seed, the server seed and seed+1.
inline DuplexRun runDuplex(smcr::Socket& s, uint64_t total, uint64_t sendSeed, uint64_t recvSeed,
                           const ReceiveOptions& options = {}) {
    DuplexRun run;
    std::thread sender([&] {
        run.sendError = sendStream(s, sendSeed, total, options.maxMessageBytes);
        if (run.sendError.empty() && !s.shutdown(SHUT_WR)) run.sendError = "shutdown failed";
    });
    run.receive = receiveStream(s, recvSeed, total, options);
    sender.join();
    return run;
}

}  // namespace smclab::test
