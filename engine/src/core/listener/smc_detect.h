// Does an accepted TCP connection speak SMC? THE one place that decides.
//
// The kernel learns it from the TCP SYN option (kind 254, magic E2 D4 C3 D9,
// smc-protocol.md 1.1), which ordinary user-space TCP cannot set or read.
// libsmcr instead looks at the client's first bytes: a libsmcr (or kernel
// SMC) client sends its CLC Proposal right after connecting, and every CLC
// message starts with the eyecatcher "SMCR"/"SMCD" in EBCDIC. So:
//   - the first bytes are an eyecatcher   -> SMC handshake;
//   - they are anything else, or EOF      -> plain TCP, bytes left unread;
//   - nothing arrives within the detect   -> plain TCP (a client that waits
//     time (lab.clc_detect_ms)               for the server to speak first).
// A later BPF sock_ops path that reads the SYN option can replace this
// function without touching the listener.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace smcr::core {

enum class DetectResult : uint8_t { smc = 0, plainTcp, silent, closed };
const char* detectResultName(DetectResult result);

// Peeks (never consumes) the first bytes of fd for up to timeoutMs.
DetectResult detectSmcClient(int fd, int timeoutMs);

// The same decision without waiting, for an event loop that watches fd
// (listener_acceptor.cpp): one MSG_PEEK | MSG_DONTWAIT look. `silent` here
// means "not decided yet": no bytes, or only the start of an eyecatcher.
// peekedBytes (if given): how many bytes were there (a partial eyecatcher
// leaves the socket readable, so a level-triggered waiter must not wait on it).
DetectResult peekSmcClient(int fd, size_t* peekedBytes = nullptr);

// The same decision from a read that consumes, for the fast fallback sort:
// one non-blocking recv() of up to kFirstReadBytes (less what prefix already
// holds), its bytes appended to prefix, and the decision taken on all of
// prefix. The bytes belong to the application if the client is plain TCP
// (SocketImpl serves them first, rx_prefix.h) and to the CLC reader if it
// speaks SMC (readClc's prefix). Merging the peek into the application's
// first read saves one syscall per plain TCP connection; and since every
// byte there was is taken, an undecided socket is never left readable.
inline constexpr size_t kFirstReadBytes = 2048;
DetectResult readSmcClient(int fd, std::vector<uint8_t>& prefix);

}  // namespace smcr::core
