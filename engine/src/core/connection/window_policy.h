// When a receiver announces its consumer cursor (a "window update" CDC).
// smc-protocol.md section 3: RFC 7609 asks for >= 10 % window growth; Linux
// first used min(rmbe/10, SOCK_MIN_SNDBUF/2) and since 2022 uses max(), which
// ended the silly-window behaviour at 2-8 KiB messages. The limit is a policy
// so the lab can compare both (the `min` variant is the pre-2022 kernel).
#pragma once

#include <cstdint>

namespace smcr::core {

// SOCK_MIN_SNDBUF on x86-64: 2 * (2048 + sizeof(struct sk_buff) rounded) = 4608.
inline constexpr uint32_t kSockMinSndbufBytes = 4608;

enum class WindowUpdateLimit : uint8_t { max = 0, min = 1 };

uint32_t windowUpdateLimitBytes(WindowUpdateLimit policy, uint32_t rmbeBytes);

struct WindowUpdateInput {
    uint32_t rmbeBytes = 0;
    uint64_t unannouncedConsumedBytes = 0;  // consumed since the last CDC we sent
    uint64_t senderFreeBytes = 0;           // free space as the sender last heard it
    bool peerWriteBlocked = false;          // the peer's last CDC had write_blocked
    bool peerRequestedUpdate = false;       // cons_curs_upd_req
    bool force = false;                     // e.g. after consuming urgent data
};

// A read larger than this is copied out in pieces with the rule below checked
// after each one, so the sender refills the freed part of the RMBE while the
// rest is copied (a quarter of the RMBE). The kernel announces once per
// recvmsg, but there the RNIC writes while the CPU copies; on the sim fabric
// the sender's CPU does the RDMA copy, and one announcement per read locks
// the two ends into turns of a whole RMBE each (copy, announce, write, copy).
// Waiting like the kernel (lab.busy_poll_us 0) a sleeping sender would pay
// a wake-up per announcement, so the whole read is one piece there, unless
// the sender is blocked on our window and polls for its update
// (lab.window_spin_us): then it is awake to refill (ConnRx::readPieceBytes).
uint32_t readPieceBytes(uint32_t rmbeBytes);

// Linux smc_tx_consumer_update's rule: forced or requested, or enough was
// consumed AND (the sender sees at most half the RMBE free OR is blocked).
bool windowUpdateNeeded(WindowUpdateLimit policy, const WindowUpdateInput& in);

}  // namespace smcr::core
