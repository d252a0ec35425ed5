#include "registry.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "real_calls.h"

namespace smcr::preload {

namespace {

std::string pathFor(char kind, uint16_t port) {
    return config().registryDir + "/" + kind + "-" + std::to_string(port);
}

void ensureDir() {
    static std::once_flag once;
    std::call_once(once, [] {
        const std::string& dir = config().registryDir;
        const size_t slash = dir.rfind('/');
        if (slash != std::string::npos && slash > 0) ::mkdir(dir.substr(0, slash).c_str(), 0777);
        // Open to every user: nginx's workers run as another user than its master.
        if (::mkdir(dir.c_str(), 0777) == 0) ::chmod(dir.c_str(), 01777);
    });
}

// Writes through the real calls: our own write() would look the fd up.
bool writeFile(const std::string& path, const std::string& text) {
    ensureDir();
    const std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(::gettid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return false;
    const bool ok = real().write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    real().close(fd);
    if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
        ::unlink(tmp.c_str());
        return false;
    }
    return true;
}

struct LocalAddresses {
    std::vector<in_addr> v4;
    std::vector<in6_addr> v6;
};

const LocalAddresses& localAddresses() {
    static LocalAddresses* addrs = [] {
        auto* a = new LocalAddresses;
        ifaddrs* list = nullptr;
        if (::getifaddrs(&list) == 0) {
            for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
                if (i->ifa_addr == nullptr) continue;
                if (i->ifa_addr->sa_family == AF_INET) {
                    a->v4.push_back(reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr);
                } else if (i->ifa_addr->sa_family == AF_INET6) {
                    a->v6.push_back(reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr);
                }
            }
            ::freeifaddrs(list);
        }
        return a;
    }();
    return *addrs;
}

}  // namespace

uint16_t portOf(const sockaddr* addr) {
    if (addr->sa_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(addr)->sin_port);
    if (addr->sa_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(addr)->sin6_port);
    return 0;
}

bool isLocalAddress(const sockaddr* addr, socklen_t len) {
    if (addr->sa_family == AF_INET && len >= sizeof(sockaddr_in)) {
        const in_addr a = reinterpret_cast<const sockaddr_in*>(addr)->sin_addr;
        if ((ntohl(a.s_addr) >> 24) == 127) return true;
        for (const in_addr& l : localAddresses().v4) {
            if (l.s_addr == a.s_addr) return true;
        }
        return false;
    }
    if (addr->sa_family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
        const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
        if (IN6_IS_ADDR_V4MAPPED(&a)) return (a.s6_addr[12] == 127);
        for (const in6_addr& l : localAddresses().v6) {
            if (std::memcmp(&l, &a, sizeof a) == 0) return true;
        }
    }
    return false;
}

std::string listenerDir(uint16_t port) {
    return config().registryDir + "/l-" + std::to_string(port);
}

void registerListener(uint16_t port, pid_t pid) {
    ensureDir();
    const std::string dir = listenerDir(port);
    if (::mkdir(dir.c_str(), 0777) == 0) ::chmod(dir.c_str(), 01777);
    (void)writeFile(dir + "/" + std::to_string(pid != 0 ? pid : ::getpid()), "");
}

void unregisterListener(uint16_t port) {
    const std::string dir = listenerDir(port);
    ::unlink((dir + "/" + std::to_string(::getpid())).c_str());
    ::rmdir(dir.c_str());  // only when no other process holds it
}

bool listenerRegistered(uint16_t port) {
    DIR* dir = ::opendir(listenerDir(port).c_str());
    if (dir == nullptr) return false;
    bool alive = false;
    while (const dirent* e = ::readdir(dir)) {
        const long pid = std::strtol(e->d_name, nullptr, 10);
        if (pid <= 0) continue;
        // A registration left by a process that died is no libsmcr listener
        // (a forked child that exited without closing): tidied on the way.
        if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) {
            alive = true;
            break;
        }
        ::unlinkat(::dirfd(dir), e->d_name, 0);
    }
    ::closedir(dir);
    return alive;
}

void markClient(uint16_t localPort) {
    (void)writeFile(pathFor('c', localPort), std::to_string(::getpid()) + "\n");
}

void unmarkClient(uint16_t localPort) {
    ::unlink(pathFor('c', localPort).c_str());
}

bool clientMarked(uint16_t peerPort) {
    struct stat st {};
    return ::stat(pathFor('c', peerPort).c_str(), &st) == 0;
}

}  // namespace smcr::preload
