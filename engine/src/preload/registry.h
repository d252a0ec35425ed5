// How a preloaded client knows its peer speaks SMC (the kernel reads a TCP
// SYN option; user space cannot). On one host, files in the sim's shared
// directory (config.h registryDir) say it, and the rule is safe by default:
//   l-<port>/<pid>  process <pid> is preloaded and holds a listening socket
//             on <port> (its own, or one inherited across fork: fork()
//             adds the child before it returns, so a parent that closes its
//             copy right after forking leaves the child's). A client sends a CLC Proposal only to a
//             local address whose port has a live pid here; everything else
//             (remote hosts, plain servers, SMCR_TCP_PORTS) is plain TCP
//             from the first byte, so no CLC byte ever reaches a plain server.
//   c-<port>  a preloaded client on local port <port> is about to propose.
//             Written before its SYN (the client binds first), removed after
//             the handshake: the server's accept() decides SMC or TCP at
//             once from it, so a plain client (or a server that speaks
//             first) never waits for a detection timeout.
#pragma once

#include <cstdint>
#include <string>

#include <sys/socket.h>
#include <sys/types.h>

namespace smcr::preload {

// Loopback or one of this host's addresses (read once).
bool isLocalAddress(const sockaddr* addr, socklen_t len);
uint16_t portOf(const sockaddr* addr);

// This process's entry for port (listen(), and a forked child's inherited listeners).
void registerListener(uint16_t port, pid_t pid = 0);  // 0: this process
void unregisterListener(uint16_t port);
bool listenerRegistered(uint16_t port);

void markClient(uint16_t localPort);
void unmarkClient(uint16_t localPort);
bool clientMarked(uint16_t peerPort);

}  // namespace smcr::preload
