// Test support for the fabric conformance suite: the fabric pair of the
// fabric benchmarks (engine/src/fabric/bench/fabric_pair.h: a side's objects,
// a forked peer and the CLC subset the two swap) on the backend the test runs
// for, with the work requests, polls and control messages the scenarios use.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include <unistd.h>

#include <smcr/fabric.h>
#include <smcr/fabric_sim.h>

#include "fabric/bench/fabric_pair.h"

namespace fabrictest {

using namespace smcr::fabric;

inline std::string backendName() {
    const char* env = std::getenv("SMCLAB_FABRIC_BACKEND");
    return env != nullptr && *env != '\0' ? env : "sim";
}

using smcr::fabric::bench::Endpoint;
using smcr::fabric::bench::PeerProcess;
using smcr::fabric::bench::SideOptions;

struct Side : smcr::fabric::bench::FabricSide {
    // On the backend this test binary runs for.
    smcr::Status setup(SideOptions options) {
        options.backend = backendName();
        return FabricSide::setup(options);
    }

    SendWr sendWr(uint64_t id, const void* data, uint32_t len, SendFlags flags) {
        SendWr wr;
        wr.wrId = id;
        wr.opcode = WrOpcode::send;
        wr.flags = flags;
        if (len > 0) {
            if (hasFlag(flags, SendFlags::inlineData)) {
                wr.sg[0] = Sge{reinterpret_cast<uint64_t>(data), len, 0};
            } else {
                std::memcpy(src->data(), data, len);
                wr.sg[0] = Sge{src->address(), len, src->lkey()};
            }
            wr.numSge = 1;
        }
        return wr;
    }

    SendWr writeWr(uint64_t id, const Endpoint& peer, uint64_t offset, uint32_t len, SendFlags flags) {
        SendWr wr;
        wr.wrId = id;
        wr.opcode = WrOpcode::rdmaWrite;
        wr.flags = flags;
        wr.sg[0] = Sge{src->address(), len, src->lkey()};
        wr.numSge = len > 0 ? 1 : 0;
        wr.remoteAddr = peer.vaddr + offset;
        wr.rkey = peer.rkey;
        return wr;
    }

    // Polls without sleeping (latency measurements); yields so that a busy
    // host still schedules the peer.
    bool spinOne(CompletionQueue& cq, WorkCompletion* wc, int timeoutMs = 5000) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        for (;;) {
            auto n = cq.poll(std::span<WorkCompletion>(wc, 1));
            if (!n) return false;
            if (n.value() == 1) return true;
            if (std::chrono::steady_clock::now() > end) return false;
            std::this_thread::yield();
        }
    }

    // Polls until one completion arrives or timeoutMs passes.
    bool pollOne(CompletionQueue& cq, WorkCompletion* wc, int timeoutMs = 5000) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        while (std::chrono::steady_clock::now() < end) {
            auto n = cq.poll(std::span<WorkCompletion>(wc, 1));
            if (!n) return false;
            if (n.value() == 1) return true;
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        return false;
    }
};

// ---- control socket between the two processes ----

template <typename T>
bool sendValue(int fd, const T& value) {
    return smcr::fabric::bench::sendAll(fd, &value, sizeof value);
}
template <typename T>
bool recvValue(int fd, T* value, int timeoutMs = 10000) {
    return smcr::fabric::bench::recvAll(fd, value, sizeof *value, timeoutMs);
}
inline bool signal(int fd, uint32_t code = 1) {
    return sendValue(fd, code);
}
inline bool waitSignal(int fd, uint32_t* code = nullptr, int timeoutMs = 10000) {
    uint32_t value = 0;
    if (!recvValue(fd, &value, timeoutMs)) return false;
    if (code != nullptr) *code = value;
    return true;
}

// The child reports a failed check on stderr and exits non-zero.
#define PEER_CHECK(cond)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            std::fprintf(stderr, "peer %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            std::fflush(stderr);                                                               \
            _exit(3);                                                                          \
        }                                                                                      \
    } while (0)

}  // namespace fabrictest
