#include "control.h"

#include <atomic>
#include <cstring>
#include <string>
#include <thread>

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "config.h"
#include "control_path.h"
#include "process.h"
#include "real_calls.h"

namespace smcr::preload {

namespace {

std::atomic<pid_t> g_servingPid{0};

std::string answer(const std::string& request) {
    if (request == "stat") return statsJson();
    if (request.rfind("set ", 0) == 0) {
        const std::string rest = request.substr(4);
        const size_t space = rest.find(' ');
        if (space == std::string::npos) return "error expected: set NAME VALUE\n";
        const std::string name = rest.substr(0, space);
        const std::string value = rest.substr(space + 1);
        if (Status s = applySetting(name, value); !s) return "error " + s.error().message + "\n";
        return "ok " + name + "=" + value + "\n";
    }
    return "error unknown request '" + request + "' (stat, set NAME VALUE)\n";
}

void serve(int listenFd) {
    for (;;) {
        const int fd = real().accept4(listenFd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            if (g_servingPid.load() != currentPid()) return;
            continue;
        }
        std::string request;
        char buf[512];
        while (request.find('\n') == std::string::npos && request.size() < 4096) {
            pollfd p{fd, POLLIN, 0};
            if (real().poll(&p, 1, 1000) <= 0) break;
            const ssize_t n = real().recv(fd, buf, sizeof buf, 0);
            if (n <= 0) break;
            request.append(buf, static_cast<size_t>(n));
        }
        if (const size_t nl = request.find('\n'); nl != std::string::npos) request.resize(nl);
        const std::string reply = answer(request);
        size_t at = 0;
        while (at < reply.size()) {
            const ssize_t n = real().send(fd, reply.data() + at, reply.size() - at, MSG_NOSIGNAL);
            if (n <= 0) break;
            at += static_cast<size_t>(n);
        }
        real().close(fd);
    }
}

}  // namespace

void ensureControl() {
    const pid_t pid = currentPid();
    pid_t serving = g_servingPid.load(std::memory_order_relaxed);
    if (serving == pid) return;
    if (!g_servingPid.compare_exchange_strong(serving, pid)) return;
    const std::string dir = controlDir();
    const size_t slash = dir.rfind('/');
    ::mkdir(dir.substr(0, slash).c_str(), 0777);
    if (::mkdir(dir.c_str(), 0777) == 0) ::chmod(dir.c_str(), 01777);
    const std::string path = controlPath(pid);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) return;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    const int fd = real().socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    ::unlink(path.c_str());  // a dead process with our pid left it
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || real().listen(fd, 8) != 0) {
        real().close(fd);
        return;
    }
    // Every signal blocked in the thread: the program's handlers run in its own threads.
    sigset_t all;
    sigset_t old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    std::thread(serve, fd).detach();
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void removeControl() {
    if (g_servingPid.load() == currentPid()) ::unlink(controlPath(currentPid()).c_str());
}

}  // namespace smcr::preload
