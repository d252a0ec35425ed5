#include <cerrno>

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "kernel_socket.h"

namespace smclab::transports {

namespace {

// The wakeup eventfd is registered with a null user pointer; streams never are.
constexpr uint32_t kLevelTriggered = 0;

uint32_t toEpoll(Interest interest) {
    uint32_t events = kLevelTriggered | EPOLLRDHUP;
    if (any(interest & Interest::read)) events |= EPOLLIN;
    if (any(interest & Interest::write)) events |= EPOLLOUT;
    return events;
}

}  // namespace

Result<std::unique_ptr<Poller>> EpollPoller::create() {
    const int epollFd = ::epoll_create1(EPOLL_CLOEXEC);
    if (epollFd < 0) return smcr::fail(smcr::makeSystemError("epoll_create1", errno));
    const int wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wakeFd < 0) {
        const int err = errno;
        ::close(epollFd);
        return smcr::fail(smcr::makeSystemError("eventfd", err));
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr;
    ::epoll_ctl(epollFd, EPOLL_CTL_ADD, wakeFd, &ev);
    return std::unique_ptr<Poller>(new EpollPoller(epollFd, wakeFd));
}

EpollPoller::~EpollPoller() {
    ::close(m_wakeFd);
    ::close(m_epollFd);
}

Status EpollPoller::control(int op, Pollable& target, Interest interest, void* userData) {
    if (userData == nullptr) return smcr::fail(smcr::Errc::invalidArgument, "poller user data must not be null");
    const int fd = target.nativeFd();
    if (fd < 0) return smcr::fail(smcr::Errc::invalidArgument, "not a kernel socket of this transport");
    epoll_event ev{};
    ev.events = toEpoll(interest);
    ev.data.ptr = userData;
    if (::epoll_ctl(m_epollFd, op, fd, &ev) < 0) return smcr::fail(smcr::makeSystemError("epoll_ctl", errno));
    return {};
}

Status EpollPoller::add(Pollable& target, Interest interest, void* userData) {
    return control(EPOLL_CTL_ADD, target, interest, userData);
}

Status EpollPoller::modify(Pollable& target, Interest interest, void* userData) {
    return control(EPOLL_CTL_MOD, target, interest, userData);
}

Status EpollPoller::remove(Pollable& target) {
    const int fd = target.nativeFd();
    if (fd < 0) return smcr::fail(smcr::Errc::invalidArgument, "not a kernel socket of this transport");
    if (::epoll_ctl(m_epollFd, EPOLL_CTL_DEL, fd, nullptr) < 0) {
        return smcr::fail(smcr::makeSystemError("epoll_ctl(DEL)", errno));
    }
    return {};
}

Result<size_t> EpollPoller::wait(std::span<PollEvent> events, int timeoutMs) {
    epoll_event raw[128];
    const int capacity = static_cast<int>(std::min<size_t>(events.size(), 128));
    int n = 0;
    do {
        n = ::epoll_wait(m_epollFd, raw, capacity, timeoutMs);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return smcr::fail(smcr::makeSystemError("epoll_wait", errno));
    size_t filled = 0;
    for (int i = 0; i < n; ++i) {
        if (raw[i].data.ptr == nullptr) {
            uint64_t drained = 0;
            [[maybe_unused]] ssize_t r = ::read(m_wakeFd, &drained, sizeof drained);
            continue;
        }
        Interest ready = Interest::none;
        if (raw[i].events & EPOLLIN) ready = ready | Interest::read;
        if (raw[i].events & EPOLLOUT) ready = ready | Interest::write;
        // A hangup is also reported as readable so a read finds EOF or the error.
        if (raw[i].events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)) ready = ready | Interest::hangup | Interest::read;
        events[filled++] = PollEvent{raw[i].data.ptr, ready};
    }
    return filled;
}

void EpollPoller::wakeup() {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t r = ::write(m_wakeFd, &one, sizeof one);
}

}  // namespace smclab::transports
