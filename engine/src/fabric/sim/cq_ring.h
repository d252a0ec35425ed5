// The completion ring shared between a CQ's owner (the only consumer) and
// every requester that completes work into it (producers claim a slot with
// fetch_add, the UCX mm FIFO pattern), plus the one-shot arm that decides
// when a producer wakes the owner's completion channel.
#pragma once

#include <cstdint>

#include "layout.h"

namespace smcr::fabric::sim {

// Internal completion flag: the entry belongs to a send queue (frees SQ slots).
inline constexpr uint32_t kCqeFromSq = 1u << 31;

struct Cqe {
    uint64_t wrId = 0;
    uint64_t sqSeq = 0;
    uint32_t qpNum = 0;
    uint32_t srcQp = 0;
    uint32_t byteLen = 0;
    uint32_t immData = 0;
    uint32_t flags = 0;  // WcFlags bits | kCqeFromSq
    WcStatus status = WcStatus::success;
    WcOpcode opcode = WcOpcode::invalid;
};

void initCq(CqShared* cq, uint32_t depth, uint32_t channelId);

// How a producer wakes the channel of the CQ it completes into: its futex
// word while the owner sleeps on it, its FIFO otherwise (layout.h,
// ChannelWord). Counters: the owner device's, for cq_events.
struct ChannelWake {
    int fifoFd = -1;
    ChannelWord* word = nullptr;
    SharedCounters* counters = nullptr;
};

// Publishes one completion; wakes the channel through `wake` when the arm
// matches. Returns false when the ring overran (the CQ is then in error).
// consumerSeen, when given, is the producer's private copy of the owner's
// poll index: the index only grows, so a stale copy errs towards "full" and
// the shared one (a line the owner writes on every poll) is read only then.
bool publishCqe(CqShared* cq, const ChannelWake& wake, const Cqe& cqe, uint64_t* consumerSeen = nullptr);

// publishCqe in two steps, so a producer can claim its slot before it
// writes the data the completion announces: claimed first (a locked
// instruction, cheap while nothing is stored yet), the data and the slot
// stores then wait on their cache lines together, not one after the other.
// A claimed slot must be completed (the owner stops at it until then).
// Returns false on overrun (the CQ is then in error, nothing claimed).
bool claimCqe(CqShared* cq, const ChannelWake& wake, uint64_t* consumerSeen, uint64_t* index);
void completeCqe(CqShared* cq, uint64_t index, const ChannelWake& wake, const Cqe& cqe);

// Wakes the threads sleeping on a channel's word (futex(2) FUTEX_WAKE).
void wakeWord(ChannelWord* word);

// Owner side. Returns false when the oldest entry is not complete yet.
bool takeCqe(CqShared* cq, Cqe* out);
bool cqMayHaveEntries(const CqShared* cq);

}  // namespace smcr::fabric::sim
