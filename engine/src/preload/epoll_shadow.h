// epoll with SMC carriers in the set. The program's epoll fd stays a real
// kernel epoll set: kernel fds (listeners, TCP, pipes, timers) live in it
// untouched, at no cost. A set that gets an SMC carrier also gets a shadow:
// its SMC registrations (events, user data) and a libsmcr Poller whose fd
// sits in the kernel set under a reserved tag, so one kernel epoll_wait
// sleeps for both kinds and EINTR, timeouts and nesting stay the kernel's.
//   - level-triggered: reported while ready (the Poller's scan);
//   - EPOLLET: a direction is reported again only after the program made a
//     recv (IN) or send (OUT) call on the socket since it was reported, the
//     contract edge-triggered programs keep (read or write until EAGAIN);
//     a spurious extra report is possible, a lost edge is not;
//   - EPOLLONESHOT: off after one report until EPOLL_CTL_MOD;
//   - EPOLLEXCLUSIVE concerns listeners, which are kernel fds here.
#pragma once

#include <csignal>

#include <sys/epoll.h>

#include "fd_table.h"

namespace smcr::preload {

int epollCtl(int epfd, int op, int fd, epoll_event* event);
int epollWait(int epfd, epoll_event* events, int maxEvents, int timeoutMs, const sigset_t* mask);

// A socket still deciding (FdKind::candidate) in kernel epoll sets: its
// registrations are remembered, and moved into the shadow when it becomes
// SMC (asio registers sockets when it opens them, before connect()).
void noteCandidateCtl(int epfd, int op, int fd, const epoll_event* event);
void candidateGone(int fd);  // closed, or stayed TCP (its kernel registrations stand)
void candidateBecameSmc(int fd);

// fd (a carrier of conn) is closing: out of every shadow that holds it.
void epollRemoveFd(Conn& conn, int fd);
// conn's last fd is gone.
void epollForget(Conn& conn);
// The epoll fd itself is closing.
void epollClosed(int epfd);

}  // namespace smcr::preload
