// Whole-buffer I/O on a libsmcr socket for the engine-level tests and their peer
// process: send() and recv() may move fewer bytes than asked, a test wants
// all of them or a clear false.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <smcr/socket.h>

#include "stream_pattern.h"

namespace smclab::test {

// False on the first error.
inline bool sendAll(smcr::Socket& s, const void* data, size_t len) {
    const auto* p = static_cast<const uint8_t*>(data);
    while (len > 0) {
        auto w = s.send(p, len);
        if (!w) return false;
        p += w.value();
        len -= w.value();
    }
    return true;
}

// False on an error or on EOF before `len` bytes.
inline bool recvAll(smcr::Socket& s, void* data, size_t len) {
    auto* p = static_cast<uint8_t*>(data);
    while (len > 0) {
        auto r = s.recv(p, len);
        if (!r || r.value() == 0) return false;
        p += r.value();
        len -= r.value();
    }
    return true;
}

// Against an echoing peer: sends `bytes` of stream `seed` and expects them back unchanged.
inline bool echoOnce(smcr::Socket& s, uint64_t seed, size_t bytes) {
    std::vector<uint8_t> out(bytes);
    std::vector<uint8_t> in(bytes);
    fillPattern(seed, 0, out.data(), bytes);
    return sendAll(s, out.data(), bytes) && recvAll(s, in.data(), bytes) && in == out;
}

// Reads whatever arrives until at least `bytes` came; false on an error or EOF.
inline bool recvAtLeast(smcr::Socket& s, uint64_t bytes) {
    std::vector<uint8_t> buf(65536);
    uint64_t got = 0;
    while (got < bytes) {
        auto r = s.recv(buf.data(), buf.size());
        if (!r || r.value() == 0) return false;
        got += r.value();
    }
    return true;
}

// How a connection whose peer or link died ends for the reader.
struct ReadEnd {
    smcr::Errc code = smcr::Errc::invalid;  // the recv error; invalid when EOF came instead
    int64_t elapsedMs = 0;                  // from the call to the error or EOF
};

// Reads until recv fails or returns EOF: bytes already delivered may still
// drain first, but a dead connection must end in an error, not EOF or a hang.
inline ReadEnd recvUntilError(smcr::Socket& s) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<uint8_t> buf(65536);
    ReadEnd end;
    for (;;) {
        auto r = s.recv(buf.data(), buf.size());
        if (!r) {
            end.code = r.error().code;
            break;
        }
        if (r.value() == 0) break;
    }
    end.elapsedMs =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    return end;
}

}  // namespace smclab::test
