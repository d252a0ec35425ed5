#include "veth_probe.h"

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

namespace smclab::locallab {

namespace {

using Clock = std::chrono::steady_clock;

class Fd {
public:
    explicit Fd(int fd = -1) : m_fd(fd) {}
    ~Fd() {
        if (m_fd >= 0) ::close(m_fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return m_fd; }
    explicit operator bool() const { return m_fd >= 0; }

private:
    int m_fd;
};

smcr::Error systemError(const char* what) {
    return smcr::Error{smcr::Errc::systemError, std::string("veth probe: ") + what + ": " + std::strerror(errno)};
}

// A listening socket inside the namespace: a socket belongs to the namespace
// its creating thread was in, so a short-lived thread enters the namespace,
// makes the socket and ends; this thread's namespace never changes.
smcr::Result<int> listenInNamespace(const QString& name, const sockaddr_in& address) {
    smcr::Result<int> result = smcr::fail(smcr::Errc::systemError, "veth probe: no listener");
    std::thread maker([&] {
        Fd ns(::open(("/run/netns/" + name.toStdString()).c_str(), O_RDONLY | O_CLOEXEC));
        if (!ns) {
            result = smcr::fail(systemError("open the namespace"));
            return;
        }
        if (::setns(ns.get(), CLONE_NEWNET) != 0) {
            result = smcr::fail(systemError("setns"));
            return;
        }
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            result = smcr::fail(systemError("socket"));
            return;
        }
        if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 1) != 0) {
            result = smcr::fail(systemError("bind/listen"));
            ::close(fd);
            return;
        }
        result = fd;
    });
    maker.join();
    return result;
}

// Reads until the sender closes; the rate counts from the first byte.
void drain(int listener, VethProbe& probe, std::chrono::milliseconds limit) {
    pollfd p{listener, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(limit.count())) != 1) return;
    Fd conn(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
    if (!conn) return;
    std::vector<char> buffer(256 * 1024);
    std::uint64_t bytes = 0;
    Clock::time_point first{};
    const Clock::time_point deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
        const ssize_t n = ::recv(conn.get(), buffer.data(), buffer.size(), 0);
        if (n <= 0) break;
        if (bytes == 0) first = Clock::now();
        bytes += static_cast<std::uint64_t>(n);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - first).count();
    if (bytes > 0 && seconds > 0) probe.gbps = static_cast<double>(bytes) * 8 / seconds / 1e9;
}

}  // namespace

smcr::Result<VethProbe> probeVethTcp(const QString& serverNamespace, const QString& serverAddress,
                                     std::chrono::milliseconds duration, int writeBytes) {
    if (writeBytes <= 0 || duration.count() <= 0)
        return smcr::fail(smcr::Errc::invalidArgument, "veth probe: bad size");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    if (::inet_pton(AF_INET, serverAddress.toStdString().c_str(), &address.sin_addr) != 1) {
        return smcr::fail(smcr::Errc::invalidArgument, "veth probe: bad address " + serverAddress.toStdString());
    }
    auto listenerFd = listenInNamespace(serverNamespace, address);
    if (!listenerFd) return smcr::fail(listenerFd.error());
    Fd listener(*listenerFd);
    socklen_t length = sizeof address;
    if (::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        return smcr::fail(systemError("getsockname"));
    }

    VethProbe probe;
    probe.duration = duration;
    probe.writeBytes = writeBytes;
    const auto limit = duration + std::chrono::seconds(2);
    std::thread receiver([&] { drain(listener.get(), probe, limit); });
    {
        Fd sender(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        if (sender && ::connect(sender.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) {
            timeval timeout{1, 0};  // a stuck wire ends the probe, not the lab
            ::setsockopt(sender.get(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
            std::vector<char> buffer(static_cast<std::size_t>(writeBytes), 'p');
            const Clock::time_point end = Clock::now() + duration;
            while (Clock::now() < end) {
                if (::send(sender.get(), buffer.data(), buffer.size(), MSG_NOSIGNAL) <= 0) break;
            }
        }
    }
    receiver.join();
    if (probe.gbps <= 0) return smcr::fail(smcr::Errc::systemError, "veth probe: no data crossed the veth");
    return probe;
}

}  // namespace smclab::locallab
