// Kernel TCP counterparts of a libsmcr listener or client in the engine
// tests: a loopback connect, whole-buffer I/O with a deadline, one CLC
// message read off the socket, and a valid CLC Proposal, so a fake CLC peer
// sends exactly the bytes a test needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <smcr/wire/clc.h>

#include <QtGlobal>

namespace smclab::test {

// A connected kernel socket to 127.0.0.1:port (the test ends if it fails).
inline int kernelConnect(uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
        qFatal("connect to port %u failed", static_cast<unsigned>(port));
    return fd;
}

// False on the first error (no SIGPIPE: the other end may be gone).
inline bool writeAll(int fd, const void* data, size_t len) {
    const auto* p = static_cast<const uint8_t*>(data);
    while (len > 0) {
        const ssize_t n = ::send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0) return false;
        p += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

// False on an error, EOF, or when no byte came for timeoutMs.
inline bool readExact(int fd, void* data, size_t len, int timeoutMs = 5000) {
    auto* p = static_cast<uint8_t*>(data);
    while (len > 0) {
        pollfd pf{fd, POLLIN, 0};
        if (::poll(&pf, 1, timeoutMs) <= 0) return false;
        const ssize_t n = ::recv(fd, p, len, 0);
        if (n <= 0) return false;
        p += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

// One CLC message from a kernel socket (header, then the rest).
inline std::optional<smcr::wire::ClcMessage> readClcMessage(int fd, int timeoutMs = 5000) {
    std::vector<uint8_t> bytes(8);
    if (!readExact(fd, bytes.data(), 8, timeoutMs)) return std::nullopt;
    auto h = smcr::wire::peekClcHeader(bytes);
    if (!h) return std::nullopt;
    bytes.resize(h->lengthBytes);
    if (!readExact(fd, bytes.data() + 8, bytes.size() - 8, timeoutMs)) return std::nullopt;
    auto m = smcr::wire::decodeClc(bytes);
    if (!m) return std::nullopt;
    return m.value();
}

// A v1 Proposal a libsmcr server accepts.
inline smcr::wire::ClcProposal validProposal(smcr::wire::SmcType type = smcr::wire::SmcType::r) {
    smcr::wire::ClcProposal p;
    p.version = 1;
    p.typeV1 = type;
    p.peerId = {1, 2, 3, 4, 5, 6, 7, 8};
    p.gid[0] = 0xfe;
    p.smcdArea = smcr::wire::ClcProposalSmcdArea{};
    p.ipPrefix = smcr::wire::ClcProposalIpPrefix{};
    return p;
}

}  // namespace smclab::test
