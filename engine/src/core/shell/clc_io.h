// CLC messages over the TCP connection: framed reads with a deadline and
// whole writes (smc-protocol.md section 1.2: peek the 8-byte header, then
// read `length` bytes; the kernel waits CLC_WAIT_TIME).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <smcr/result.h>
#include <smcr/wire/clc.h>

namespace smcr::core {

enum class ClcReadStatus : uint8_t { ok = 0, timeout, notClc, malformed, closed, error };

struct ClcRead {
    ClcReadStatus status = ClcReadStatus::error;
    wire::ClcHeader header;
    std::vector<uint8_t> bytes;  // the whole message when ok
    std::string detail;
};

// Waits up to timeoutMs for one CLC message. Bytes that do not start with an
// SMC eyecatcher are left unread (notClc) so a fallback loses nothing.
ClcRead readClc(int fd, int timeoutMs);
// The same after the listener's sort already took the first bytes off the
// socket (smc_detect.h readSmcClient): the message is assembled from
// *prefix, then the socket. On ok its bytes leave *prefix; otherwise every
// byte read stays there (a fallback hands them to the application).
ClcRead readClc(int fd, int timeoutMs, std::vector<uint8_t>* prefix);
Status writeAllTcp(int fd, std::span<const uint8_t> bytes);
// True when fd has bytes (or EOF) to read right now.
bool tcpReadable(int fd);

}  // namespace smcr::core
