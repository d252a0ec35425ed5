// Interposed data calls. SMC carriers go to libsmcr (smc_io.h); tracked TCP
// sockets are counted; every other fd passes through after one atomic load.
#include <cerrno>

#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fd_table.h"
#include "process.h"
#include "real_calls.h"
#include "smc_io.h"

using namespace smcr::preload;

#define SMCR_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// The connection behind an SMC carrier of this process; null otherwise.
// After fork() the first process to use a connection runs its engine; in
// the others its fds fail with EIO (*inherited set).
std::shared_ptr<Conn> smcConn(int fd, bool* inherited) {
    auto conn = fdTable().conn(fd);
    if (conn && !usableHere(*conn)) {
        counters().inheritedIo.fetch_add(1, std::memory_order_relaxed);
        *inherited = true;
        return nullptr;
    }
    return conn;
}

ssize_t countTcpRx(ssize_t n, int fd) {
    if (n > 0 && fdTable().kind(fd) == FdKind::tcp)
        counters().tcpRxBytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    return n;
}
ssize_t countTcpTx(ssize_t n, int fd) {
    if (n > 0 && fdTable().kind(fd) == FdKind::tcp)
        counters().tcpTxBytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    return n;
}

ssize_t eio() {
    errno = EIO;
    return -1;
}

}  // namespace

#define SMC_OR_PASS(fd, smcCall, passCall, count)                    \
    do {                                                             \
        if (fdTable().kind(fd) == FdKind::smc) {                     \
            bool inherited = false;                                  \
            if (auto conn = smcConn(fd, &inherited)) return smcCall; \
            if (inherited) return eio();                             \
        }                                                            \
        return count(passCall, fd);                                  \
    } while (0)

SMCR_EXPORT ssize_t read(int fd, void* buf, size_t len) {
    SMC_OR_PASS(fd, smcRecv(*conn, buf, len, 0), real().read(fd, buf, len), countTcpRx);
}

SMCR_EXPORT ssize_t __read_chk(int fd, void* buf, size_t len, size_t buflen) {
    (void)buflen;
    return read(fd, buf, len);
}

SMCR_EXPORT ssize_t write(int fd, const void* buf, size_t len) {
    SMC_OR_PASS(fd, smcSend(*conn, buf, len, 0), real().write(fd, buf, len), countTcpTx);
}

SMCR_EXPORT ssize_t readv(int fd, const iovec* iov, int iovcnt) {
    SMC_OR_PASS(fd, smcRecvIov(*conn, iov, iovcnt, 0), real().readv(fd, iov, iovcnt), countTcpRx);
}

SMCR_EXPORT ssize_t writev(int fd, const iovec* iov, int iovcnt) {
    SMC_OR_PASS(fd, smcSendIov(*conn, iov, iovcnt, 0), real().writev(fd, iov, iovcnt), countTcpTx);
}

SMCR_EXPORT ssize_t recv(int fd, void* buf, size_t len, int flags) {
    SMC_OR_PASS(fd, smcRecv(*conn, buf, len, flags), real().recv(fd, buf, len, flags), countTcpRx);
}

SMCR_EXPORT ssize_t __recv_chk(int fd, void* buf, size_t len, size_t buflen, int flags) {
    (void)buflen;
    return recv(fd, buf, len, flags);
}

SMCR_EXPORT ssize_t send(int fd, const void* buf, size_t len, int flags) {
    SMC_OR_PASS(fd, smcSend(*conn, buf, len, flags), real().send(fd, buf, len, flags), countTcpTx);
}

SMCR_EXPORT ssize_t recvfrom(int fd, void* buf, size_t len, int flags, sockaddr* from, socklen_t* fromLen) {
    // A connected stream socket's recvfrom names no sender.
    SMC_OR_PASS(fd, (fromLen != nullptr ? (*fromLen = 0) : 0, smcRecv(*conn, buf, len, flags)),
                real().recvfrom(fd, buf, len, flags, from, fromLen), countTcpRx);
}

SMCR_EXPORT ssize_t __recvfrom_chk(int fd, void* buf, size_t len, size_t buflen, int flags, sockaddr* from,
                                   socklen_t* fromLen) {
    (void)buflen;
    return recvfrom(fd, buf, len, flags, from, fromLen);
}

SMCR_EXPORT ssize_t sendto(int fd, const void* buf, size_t len, int flags, const sockaddr* to, socklen_t toLen) {
    SMC_OR_PASS(fd, smcSend(*conn, buf, len, flags), real().sendto(fd, buf, len, flags, to, toLen), countTcpTx);
}

SMCR_EXPORT ssize_t recvmsg(int fd, msghdr* msg, int flags) {
    SMC_OR_PASS(fd,
                (msg->msg_namelen = 0, msg->msg_controllen = 0, msg->msg_flags = 0,
                 smcRecvIov(*conn, msg->msg_iov, static_cast<int>(msg->msg_iovlen), flags)),
                real().recvmsg(fd, msg, flags), countTcpRx);
}

SMCR_EXPORT ssize_t sendmsg(int fd, const msghdr* msg, int flags) {
    SMC_OR_PASS(fd, smcSendIov(*conn, msg->msg_iov, static_cast<int>(msg->msg_iovlen), flags),
                real().sendmsg(fd, msg, flags), countTcpTx);
}

SMCR_EXPORT ssize_t sendfile(int outFd, int inFd, off_t* offset, size_t count) {
    SMC_OR_PASS(outFd, smcSendfile(*conn, inFd, offset, count), real().sendfile(outFd, inFd, offset, count),
                countTcpTx);
}

SMCR_EXPORT ssize_t sendfile64(int outFd, int inFd, off_t* offset, size_t count) {
    return sendfile(outFd, inFd, offset, count);
}
