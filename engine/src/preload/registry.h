// How a preloaded client knows its peer speaks SMC (the kernel reads a TCP
// SYN option; user space cannot). Every libsmcr process of a host that
// shares the sim fabric shares its directory (config.h registryDir), also
// across network namespaces (the local lab's server agent sits in one
// behind a veth), and files there say who listens where. The rule is safe
// by default: a CLC byte never reaches a plain program.
//   l-<port>/<pid>  process <pid> is preloaded and holds a listening socket
//             on <port> (its own, or one inherited across fork: fork()
//             adds the child before it returns, so a parent that closes its
//             copy right after forking leaves the child's). The file names
//             the process's network namespace and the addresses the socket
//             answers on (its bound address, or for a wildcard bind every
//             address of its namespace at listen()). A client sends a CLC
//             Proposal only where a live entry answers: to a loopback
//             address only a listener of its own namespace, to any other
//             address a listener that has it, in any namespace (the lab's
//             veth address lives in the server's namespace only). Everything
//             else (remote hosts, plain servers, SMCR_TCP_PORTS) is plain TCP
//             from the first byte, decided by one directory lookup.
//             Under smc_synopt (smcr_run --syn-option) a remote peer is
//             asked after the TCP connect instead: its SYN-ACK's option,
//             as the BPF program recorded it, decides (upgrade.cpp).
//   c-<port>-<address>-<port>  a preloaded client on local port <port> is
//             about to propose to <address>:<port>. Written before its SYN
//             (the client binds first), removed after the handshake: the
//             server's accept() decides SMC or TCP at once from it (the
//             accepted socket's own address and port name the file), so a
//             plain client (or a server that speaks first) never waits for
//             a detection timeout.
#pragma once

#include <cstdint>
#include <string>

#include <sys/socket.h>
#include <sys/types.h>

namespace smcr::preload {

uint16_t portOf(const sockaddr* addr);
// "127.0.0.1", "10.1.2.3", "fe80::1": an IPv4-mapped IPv6 address as its
// IPv4 one, the wildcard as loopback (connect() to it reaches this host);
// empty for other families.
std::string addressKey(const sockaddr* addr, socklen_t len);

// What a listening socket answers on, as its registry entry says it.
std::string listenerRecord(int fd);
// This process's entry for port (listen(), and a forked child's inherited
// listeners with pid); `record` from listenerRecord().
void registerListener(uint16_t port, const std::string& record, pid_t pid = 0);
void unregisterListener(uint16_t port);
// A live preloaded listener answers at addr (see above).
bool listenerReachable(const sockaddr* addr, socklen_t len);

// The client's marker: localPort proposing to the server at `server`.
void markClient(uint16_t localPort, const sockaddr* server, socklen_t len);
void unmarkClient(uint16_t localPort, const sockaddr* server, socklen_t len);
// Did a preloaded client on peerPort mark its connection to `local` (the
// accepted socket's own address)?
bool clientMarked(uint16_t peerPort, const sockaddr* local, socklen_t len);

}  // namespace smcr::preload
