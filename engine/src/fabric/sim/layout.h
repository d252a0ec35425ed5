// Layout of the sim's shared files. Every object a peer touches lives in its
// own file under the sim directory, named after the owning device instance:
//   d<inst>.dev        DeviceShared (liveness lock, ports, link model, counters)
//   d<inst>-qp<qpn>    QpShared + receive ring
//   d<inst>-cq<id>     CqShared + completion ring (multi-producer)
//   d<inst>-mr<key>    MrShared header page + region bytes
//   d<inst>-ch<id>     named FIFO of a completion channel (its futex word is
//                      in the device file: ChannelWord)
// Only fixed-width fields and lock-free atomics are placed here; the struct
// layout is the protocol between processes built from the same sources.
#pragma once

#include <atomic>
#include <cstdint>

#include <smcr/fabric_types.h>

namespace smcr::fabric::sim {

inline constexpr uint32_t kLayoutVersion = 3;
inline constexpr uint32_t kMagicDevice = 0x534d4344;  // "SMCD"
inline constexpr uint32_t kMagicQp = 0x534d4351;      // "SMCQ"
inline constexpr uint32_t kMagicCq = 0x534d4343;      // "SMCC"
inline constexpr uint32_t kMagicMr = 0x534d434d;      // "SMCM"
inline constexpr uint64_t kMrHeaderBytes = 4096;      // region data starts page-aligned
inline constexpr uint32_t kSimPorts = 2;

static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<uint32_t>::is_always_lock_free);

// Split by writer: the first line only the owner's requester updates, the
// second only peers (a SEND counts its receive at the responder). A line
// written from both sides would bounce between the CPUs on every message.
struct SharedCounters {
    std::atomic<uint64_t> rdmaWrites{0};
    std::atomic<uint64_t> sends{0};
    std::atomic<uint64_t> rnrNaksReceived{0};
    std::atomic<uint64_t> retryExceeded{0};
    std::atomic<uint64_t> remoteAccessErrors{0};
    std::atomic<uint64_t> bytesWritten{0};
    std::atomic<uint64_t> bytesSent{0};
    alignas(64) std::atomic<uint64_t> recvs{0};
    std::atomic<uint64_t> rnrNaksSent{0};
    std::atomic<uint64_t> cqEvents{0};
};

// A completion channel's wake-up without file descriptors. A thread of the
// owner whose only wake sources are the channel and its own process sleeps
// on `seq` with futex(2) (SimChannel::sleepOnWord); a producer that finds
// `sleepers` set bumps `seq` and wakes it instead of writing the FIFO. A
// FIFO wake-up costs the producer's write, the sleeper's poll over its fds
// and the read that drains it; this one costs one wake and one wait, what
// a blocking read pays. `fifoBytes` counts what producers wrote into the
// FIFO and the owner has not read, so the owner drains only when there is
// something to drain.
struct alignas(64) ChannelWord {
    std::atomic<uint32_t> seq{0};
    std::atomic<uint32_t> sleepers{0};
    std::atomic<uint32_t> fifoBytes{0};
};
// Channels with a lower id have a word; the engine opens one per device.
inline constexpr uint32_t kChannelWords = 16;

struct DeviceShared {
    uint32_t magic;
    uint32_t version;
    uint32_t instance;
    int32_t pid;
    std::atomic<uint32_t> alive;  // 0 after an orderly close
    uint32_t mtuEnum;
    uint64_t wireLatencyNs;
    double bandwidthGbps;
    uint64_t perWrNs;
    char linkName[32];
    uint64_t openedAtUnixNs;
    alignas(64) SharedCounters counters;
    ChannelWord channelWords[kChannelWords];
};

inline ChannelWord* channelWord(DeviceShared* dev, uint32_t channelId) {
    return dev != nullptr && channelId != 0 && channelId < kChannelWords ? &dev->channelWords[channelId] : nullptr;
}

struct RqSge {
    uint32_t mrKey;  // the owner's region (file d<inst>-mr<key>)
    uint32_t length;
    uint64_t offset;  // into the region's data
};

// Ring entries start on a cache line: an entry shares no line with its
// neighbours, which the other side may be writing at the same moment.
struct alignas(64) RqEntry {
    uint64_t wrId;
    uint32_t numSge;
    uint32_t pad;
    RqSge sg[kMaxSge];
};

struct alignas(64) QpShared {
    uint32_t magic;
    uint32_t qpn;
    uint32_t recvDepth;
    uint32_t recvCqId;
    uint32_t pdId;
    uint32_t pad;
    std::atomic<uint32_t> alive;  // 0 once destroyed
    std::atomic<uint32_t> state;  // QpState
    std::atomic<uint32_t> minRnrTimer;
    std::atomic<uint32_t> accessFlags;  // remote rights of the QP
    std::atomic<uint32_t> remoteQpn;
    std::atomic<uint32_t> remoteInstance;
    std::atomic<uint32_t> expectedPsn;  // responder's next PSN (for the capture)
    std::atomic<uint32_t> rnrWaiting;
    alignas(64) std::atomic<uint64_t> rqHead;  // next entry to consume (CAS by consumers)
    alignas(64) std::atomic<uint64_t> rqTail;  // next entry the owner fills
};

struct alignas(64) CqeSlot {
    std::atomic<uint64_t> seq;  // claim index + 1 once the entry is complete
    uint64_t wrId;
    uint64_t sqSeq;  // send completions: the WR's position in its send queue
    uint32_t qpNum;
    uint32_t srcQp;
    uint32_t byteLen;
    uint32_t immData;
    uint32_t flags;
    uint8_t status;
    uint8_t opcode;
    uint8_t pad[2];
};

enum ArmState : uint32_t { kArmNone = 0, kArmSolicited = 1, kArmNext = 2 };

struct alignas(64) CqShared {
    uint32_t magic;
    uint32_t depth;
    uint32_t channelId;  // 0 = no channel
    uint32_t pad;
    std::atomic<uint32_t> alive;
    std::atomic<uint32_t> arm;
    std::atomic<uint32_t> overrun;
    std::atomic<uint32_t> eventsPending;
    alignas(64) std::atomic<uint64_t> reserve;   // producers claim with fetch_add
    alignas(64) std::atomic<uint64_t> consumer;  // the owner's poll index
};

struct alignas(64) MrShared {
    uint32_t magic;
    uint32_t key;
    uint32_t pdId;
    uint32_t pad;
    std::atomic<uint32_t> valid;   // cleared on deregistration
    std::atomic<uint32_t> access;  // Access bits
    uint64_t vaddr;                // the owner's address of the first data byte
    uint64_t length;
};

static_assert(sizeof(RqEntry) % 64 == 0 && sizeof(CqeSlot) == 64 && sizeof(QpShared) % 64 == 0 &&
              sizeof(CqShared) % 64 == 0);

// Increments a counter of the owner's line. Only the owning process writes
// it (under its device lock), so a plain load and store do; a locked
// read-modify-write would also wait for every store before it to drain.
inline void bumpOwned(std::atomic<uint64_t>& counter, uint64_t by = 1) {
    counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

// The rings follow their headers directly.
inline RqEntry* rqEntries(QpShared* qp) {
    return reinterpret_cast<RqEntry*>(reinterpret_cast<char*>(qp) + sizeof(QpShared));
}
inline CqeSlot* cqSlots(CqShared* cq) {
    return reinterpret_cast<CqeSlot*>(reinterpret_cast<char*>(cq) + sizeof(CqShared));
}
inline uint64_t qpFileBytes(uint32_t recvDepth) {
    return sizeof(QpShared) + uint64_t{recvDepth} * sizeof(RqEntry);
}
inline uint64_t cqFileBytes(uint32_t depth) {
    return sizeof(CqShared) + uint64_t{depth} * sizeof(CqeSlot);
}

}  // namespace smcr::fabric::sim
