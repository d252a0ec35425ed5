#include "control_path.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <dirent.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <smcr/fabric_sim.h>

namespace smcr::preload {

std::string controlDir(const std::string& simDir) {
    return fabric::sim::simDir(simDir) + "/preload/ctl";
}

std::string controlPath(pid_t pid, const std::string& simDir) {
    return controlDir(simDir) + "/" + std::to_string(pid) + ".sock";
}

Result<std::string> controlRequest(pid_t pid, const std::string& request, int timeoutMs) {
    const std::string path = controlPath(pid);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) return fail(Errc::invalidArgument, path + ": path too long");
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return fail(makeSystemError("socket", errno));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        const int err = errno;
        ::close(fd);
        if (err == ENOENT || err == ECONNREFUSED) {
            return fail(Errc::notFound,
                        "process " + std::to_string(pid) + " has no libsmcr preload running (" + path + ")");
        }
        return fail(makeSystemError("connect " + path, err));
    }
    size_t at = 0;
    while (at < request.size()) {
        const ssize_t n = ::send(fd, request.data() + at, request.size() - at, MSG_NOSIGNAL);
        if (n <= 0) {
            ::close(fd);
            return fail(makeSystemError("send " + path, errno));
        }
        at += static_cast<size_t>(n);
    }
    std::string answer;
    char buf[4096];
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, timeoutMs) <= 0) {
            ::close(fd);
            return fail(Errc::timedOut, "process " + std::to_string(pid) + " did not answer");
        }
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        answer.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return answer;
}

std::vector<pid_t> controlPids() {
    std::vector<pid_t> pids;
    DIR* dir = ::opendir(controlDir().c_str());
    if (dir == nullptr) return pids;
    while (const dirent* e = ::readdir(dir)) {
        const std::string name = e->d_name;
        if (name.size() < 6 || name.substr(name.size() - 5) != ".sock") continue;
        const long pid = std::strtol(name.c_str(), nullptr, 10);
        if (pid > 0) pids.push_back(static_cast<pid_t>(pid));
    }
    ::closedir(dir);
    std::sort(pids.begin(), pids.end());
    return pids;
}

}  // namespace smcr::preload
