#include "real_calls.h"

#include <atomic>
#include <mutex>

#include <dlfcn.h>

namespace smcr::preload {

namespace {

RealCalls g_real{};
std::atomic<bool> g_ready{false};

template <typename F>
void resolve(F& slot, const char* name) {
    slot = reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

void resolveAll() {
    resolve(g_real.socket, "socket");
    resolve(g_real.connect, "connect");
    resolve(g_real.listen, "listen");
    resolve(g_real.accept, "accept");
    resolve(g_real.accept4, "accept4");
    resolve(g_real.close, "close");
    resolve(g_real.shutdown, "shutdown");
    resolve(g_real.read, "read");
    resolve(g_real.write, "write");
    resolve(g_real.readv, "readv");
    resolve(g_real.writev, "writev");
    resolve(g_real.recv, "recv");
    resolve(g_real.send, "send");
    resolve(g_real.recvfrom, "recvfrom");
    resolve(g_real.sendto, "sendto");
    resolve(g_real.recvmsg, "recvmsg");
    resolve(g_real.sendmsg, "sendmsg");
    resolve(g_real.sendfile, "sendfile");
    resolve(g_real.fcntl, "fcntl");
    resolve(g_real.ioctl, "ioctl");
    resolve(g_real.setsockopt, "setsockopt");
    resolve(g_real.dup, "dup");
    resolve(g_real.dup2, "dup2");
    resolve(g_real.dup3, "dup3");
    resolve(g_real.poll, "poll");
    resolve(g_real.ppoll, "ppoll");
    resolve(g_real.select, "select");
    resolve(g_real.pselect, "pselect");
    resolve(g_real.epoll_ctl, "epoll_ctl");
    resolve(g_real.epoll_wait, "epoll_wait");
    resolve(g_real.epoll_pwait, "epoll_pwait");
    resolve(g_real.epoll_pwait2, "epoll_pwait2");
    resolve(g_real.fork, "fork");
    resolve(g_real.close_range, "close_range");
    resolve(g_real.syscall, "syscall");
    resolve(g_real.sigaction, "sigaction");
}

}  // namespace

const RealCalls& real() {
    if (!g_ready.load(std::memory_order_acquire)) {
        static std::once_flag once;
        std::call_once(once, [] {
            resolveAll();
            g_ready.store(true, std::memory_order_release);
        });
    }
    return g_real;
}

}  // namespace smcr::preload
