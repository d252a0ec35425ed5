// Data calls on SMC carriers, with the blocking done here rather than in
// libsmcr: the socket is non-blocking and a blocking call sleeps in the
// kernel (poll on a Poller's fd), so signals interrupt it with EINTR
// (qperf ends its tests with SIGALRM and no SA_RESTART) and
// pthread_cancel finds a cancellation point.
#pragma once

#include <csignal>

#include <poll.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <smcr/result.h>

#include "fd_table.h"

namespace smcr::preload {

// errno for a libsmcr error (sending: EPIPE for a closed or reset peer).
int errnoOf(const Error& error, bool sending);

ssize_t smcRecv(Conn& conn, void* data, size_t len, int flags);
ssize_t smcSend(Conn& conn, const void* data, size_t len, int flags);
ssize_t smcRecvIov(Conn& conn, const iovec* iov, int iovcnt, int flags);
ssize_t smcSendIov(Conn& conn, const iovec* iov, int iovcnt, int flags);
ssize_t smcSendfile(Conn& conn, int inFd, off_t* offset, size_t count);

// poll(2) over any mix of SMC carriers and kernel fds. SMC entries get
// their readiness from libsmcr; the kernel sleeps for all of them.
int pollMixed(pollfd* fds, nfds_t nfds, int timeoutMs, const sigset_t* mask);
// True when some fd of the array is an SMC carrier (else poll passes through).
bool anySmc(const pollfd* fds, nfds_t nfds);

}  // namespace smcr::preload
