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

// This process's network namespace ("net:[4026531992]"), read once: a
// process does not change namespaces under the preload.
const std::string& netnsId() {
    static const std::string* id = [] {
        char link[64] = {};
        const ssize_t n = ::readlink("/proc/self/ns/net", link, sizeof link - 1);
        return new std::string(n > 0 ? std::string(link, static_cast<size_t>(n)) : std::string("?"));
    }();
    return *id;
}

bool isLoopbackKey(const std::string& key) {
    return key == "::1" || key.rfind("127.", 0) == 0;
}

std::string readFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {};
    std::string text;
    char buf[1024];
    for (;;) {
        const ssize_t n = real().read(fd, buf, sizeof buf);
        if (n <= 0) break;
        text.append(buf, static_cast<size_t>(n));
    }
    real().close(fd);
    return text;
}

// Does the registry entry `record` answer at address `key`?
bool recordAnswers(const std::string& record, const std::string& key) {
    std::string netns;
    bool any = false;
    bool listed = false;
    size_t pos = 0;
    while (pos < record.size()) {
        size_t end = record.find('\n', pos);
        if (end == std::string::npos) end = record.size();
        const std::string line = record.substr(pos, end - pos);
        pos = end + 1;
        if (line.rfind("netns ", 0) == 0) netns = line.substr(6);
        if (line == "any") any = true;
        if (line.rfind("addr ", 0) == 0 && line.substr(5) == key) listed = true;
    }
    // Loopback is every namespace's own: only a listener of ours answers there.
    if (isLoopbackKey(key)) return netns == netnsId() && (any || listed);
    return listed;
}

std::string markerPath(uint16_t clientPort, const std::string& serverKey, uint16_t serverPort) {
    return config().registryDir + "/c-" + std::to_string(clientPort) + "-" + serverKey + "-" +
           std::to_string(serverPort);
}

}  // namespace

uint16_t portOf(const sockaddr* addr) {
    if (addr->sa_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(addr)->sin_port);
    if (addr->sa_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(addr)->sin6_port);
    return 0;
}

std::string addressKey(const sockaddr* addr, socklen_t len) {
    char text[INET6_ADDRSTRLEN] = {};
    if (addr->sa_family == AF_INET && len >= sizeof(sockaddr_in)) {
        in_addr a = reinterpret_cast<const sockaddr_in*>(addr)->sin_addr;
        if (a.s_addr == htonl(INADDR_ANY)) a.s_addr = htonl(INADDR_LOOPBACK);
        ::inet_ntop(AF_INET, &a, text, sizeof text);
        return text;
    }
    if (addr->sa_family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
        const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(&a)) {
            in_addr v4{};
            std::memcpy(&v4, &a.s6_addr[12], sizeof v4);
            if (v4.s_addr == htonl(INADDR_ANY)) v4.s_addr = htonl(INADDR_LOOPBACK);
            ::inet_ntop(AF_INET, &v4, text, sizeof text);
            return text;
        }
        if (IN6_IS_ADDR_UNSPECIFIED(&a)) return "::1";
        ::inet_ntop(AF_INET6, &a, text, sizeof text);
        return text;
    }
    return {};
}

std::string listenerRecord(int fd) {
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len) != 0) return {};
    std::string record = "netns " + netnsId() + "\n";
    bool wildcard = false;
    if (bound.ss_family == AF_INET) {
        wildcard = reinterpret_cast<const sockaddr_in*>(&bound)->sin_addr.s_addr == htonl(INADDR_ANY);
    } else if (bound.ss_family == AF_INET6) {
        wildcard = IN6_IS_ADDR_UNSPECIFIED(&reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_addr);
    }
    if (!wildcard) return record + "addr " + addressKey(reinterpret_cast<sockaddr*>(&bound), len) + "\n";
    record += "any\n";
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) == 0) {
        for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
            if (i->ifa_addr == nullptr) continue;
            const socklen_t size = i->ifa_addr->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
            const std::string key = addressKey(i->ifa_addr, size);
            if (!key.empty()) record += "addr " + key + "\n";
        }
        ::freeifaddrs(list);
    }
    return record;
}

std::string listenerDir(uint16_t port) {
    return config().registryDir + "/l-" + std::to_string(port);
}

void registerListener(uint16_t port, const std::string& record, pid_t pid) {
    ensureDir();
    const std::string dir = listenerDir(port);
    if (::mkdir(dir.c_str(), 0777) == 0) ::chmod(dir.c_str(), 01777);
    const std::string path = dir + "/" + std::to_string(pid != 0 ? pid : ::getpid());
    // A process with several listeners on one port (redis binds 0.0.0.0
    // and ::, nginx one per address) answers on all of them: the lines add up.
    std::string merged = readFile(path);
    size_t pos = 0;
    while (pos < record.size()) {
        size_t end = record.find('\n', pos);
        if (end == std::string::npos) end = record.size();
        const std::string line = record.substr(pos, end - pos) + "\n";
        pos = end + 1;
        if (merged.find(line) == std::string::npos) merged += line;
    }
    (void)writeFile(path, merged);
}

void unregisterListener(uint16_t port) {
    const std::string dir = listenerDir(port);
    ::unlink((dir + "/" + std::to_string(::getpid())).c_str());
    ::rmdir(dir.c_str());  // only when no other process holds it
}

bool listenerReachable(const sockaddr* addr, socklen_t len) {
    const std::string key = addressKey(addr, len);
    if (key.empty()) return false;
    const std::string dirPath = listenerDir(portOf(addr));
    DIR* dir = ::opendir(dirPath.c_str());
    if (dir == nullptr) return false;
    bool answers = false;
    while (const dirent* e = ::readdir(dir)) {
        const long pid = std::strtol(e->d_name, nullptr, 10);
        if (pid <= 0) continue;
        // A registration left by a process that died is no libsmcr listener
        // (a forked child that exited without closing): tidied on the way.
        // Another namespace's pid is not ours to signal (a separate pid
        // namespace): that entry stands while kill() cannot tell.
        if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
            ::unlinkat(::dirfd(dir), e->d_name, 0);
            continue;
        }
        if (recordAnswers(readFile(dirPath + "/" + e->d_name), key)) {
            answers = true;
            break;
        }
    }
    ::closedir(dir);
    return answers;
}

void markClient(uint16_t localPort, const sockaddr* server, socklen_t len) {
    (void)writeFile(markerPath(localPort, addressKey(server, len), portOf(server)), std::to_string(::getpid()) + "\n");
}

void unmarkClient(uint16_t localPort, const sockaddr* server, socklen_t len) {
    ::unlink(markerPath(localPort, addressKey(server, len), portOf(server)).c_str());
}

bool clientMarked(uint16_t peerPort, const sockaddr* local, socklen_t len) {
    struct stat st {};
    return ::stat(markerPath(peerPort, addressKey(local, len), portOf(local)).c_str(), &st) == 0;
}

}  // namespace smcr::preload
