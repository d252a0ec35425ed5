// Where a TCP connection becomes SMC-R or stays TCP: connect() on the
// client, accept() on the server (registry.h says how each side knows).
// The client's upgrade runs inside connect() (a non-blocking connect to a
// libsmcr peer completes before it returns: one loopback handshake), the
// server's inside accept(): a connection is decided before the program can
// put it into an epoll set or write to it, so no program ever sees a
// half-made one.
#pragma once

#include <memory>

#include <sys/socket.h>

#include "fd_table.h"

namespace smcr::preload {

int connectUpgrading(int fd, const sockaddr* addr, socklen_t len);
// After a successful accept()/accept4() of newFd on a tracked listener.
// Returns newFd, or -1 with errno (the connection could not be made safe).
int acceptUpgrading(int listenFd, int newFd, int acceptFlags);
// After a successful listen() of fd.
void listened(int fd);

// The preload's part of closing fd (the kernel close is the caller's).
void forget(int fd);
// The last fd of a connection is gone: close it over SMC. After fork(), in
// a process that does not run its engine, nothing is sent: while the engine
// is parked here the connection waits (closeDeferred closes it should this
// process claim the engine; dropDeferred forgets it when the copy is
// discarded), else the handle is left alone.
void release(std::shared_ptr<Conn> conn);
void closeDeferred(const Engine& engine);
void dropDeferred(const Engine& engine);

}  // namespace smcr::preload
