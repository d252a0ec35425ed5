#include "tool_process.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace smclab::workloads {

double monotonicSec() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

namespace {

double seconds(const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

void closeFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

}  // namespace

smcr::Result<std::unique_ptr<ToolProcess>> ToolProcess::start(const ToolCommand& command) {
    if (command.argv.empty() || command.argv.front().empty() || command.argv.front().front() != '/') {
        return smcr::fail(smcr::Errc::invalidArgument, "tool command: the program must be an absolute path");
    }
    int outPipe[2] = {-1, -1};
    int errPipe[2] = {-1, -1};
    if (::pipe2(outPipe, O_CLOEXEC) != 0) return smcr::fail(smcr::makeSystemError("pipe2", errno));
    if (::pipe2(errPipe, O_CLOEXEC) != 0) {
        const int err = errno;
        ::close(outPipe[0]);
        ::close(outPipe[1]);
        return smcr::fail(smcr::makeSystemError("pipe2", err));
    }
    // Everything the child needs is built before fork: after it only
    // async-signal-safe calls (the agent has threads).
    std::vector<char*> argv;
    for (const std::string& word : command.argv) argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    std::vector<std::string> envText = command.env;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('='));
        bool replaced = false;
        for (const std::string& extra : command.env) replaced = replaced || extra.substr(0, extra.find('=')) == name;
        if (!replaced) envText.push_back(entry);
    }
    std::vector<char*> envp;
    for (const std::string& entry : envText) envp.push_back(const_cast<char*>(entry.c_str()));
    envp.push_back(nullptr);
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (command.cpu >= 0) CPU_SET(command.cpu, &cpus);
    const int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

    const pid_t pid = ::fork();
    if (pid < 0) {
        const int err = errno;
        for (int fd : {outPipe[0], outPipe[1], errPipe[0], errPipe[1], devNull}) ::close(fd);
        return smcr::fail(smcr::makeSystemError("fork", err));
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        if (command.cpu >= 0 && ::sched_setaffinity(0, sizeof cpus, &cpus) != 0) _exit(125);
        ::dup2(devNull, 0);
        ::dup2(outPipe[1], 1);
        ::dup2(errPipe[1], 2);
        // Nothing of the agent's (sockets, its listener, the fabric's files)
        // leaks into the tool.
        ::syscall(SYS_close_range, 3U, ~0U, 0U);
        ::execve(argv[0], argv.data(), envp.data());
        _exit(127);
    }
    ::setpgid(pid, pid);  // also here: no race with a kill before the child ran
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    if (devNull >= 0) ::close(devNull);
    ::fcntl(outPipe[0], F_SETFL, O_NONBLOCK);
    ::fcntl(errPipe[0], F_SETFL, O_NONBLOCK);
    std::unique_ptr<ToolProcess> process(new ToolProcess());
    process->m_pid = pid;
    process->m_outFd = outPipe[0];
    process->m_errFd = errPipe[0];
    process->m_startSec = monotonicSec();
    return process;
}

ToolProcess::~ToolProcess() {
    if (!m_exited && m_pid > 0) {
        terminate();
    }
    closeFd(m_outFd);
    closeFd(m_errFd);
}

void ToolProcess::pump(int timeoutMs) {
    pollfd fds[2];
    nfds_t count = 0;
    for (int fd : {m_outFd, m_errFd}) {
        if (fd >= 0) fds[count++] = {fd, POLLIN, 0};
    }
    if (count == 0) {
        if (timeoutMs > 0) ::usleep(static_cast<useconds_t>(timeoutMs) * 1000);
        return;
    }
    if (::poll(fds, count, timeoutMs) <= 0) return;
    char buffer[16384];
    for (nfds_t i = 0; i < count; ++i) {
        if (fds[i].revents == 0) continue;
        const bool isOut = fds[i].fd == m_outFd;
        std::string& sink = isOut ? m_exit.out : m_exit.err;
        for (;;) {
            const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
            if (n > 0) {
                const size_t room = kMaxCaptureBytes > sink.size() ? kMaxCaptureBytes - sink.size() : 0;
                sink.append(buffer, std::min(room, static_cast<size_t>(n)));
                continue;
            }
            if (n == 0) closeFd(isOut ? m_outFd : m_errFd);  // EOF
            break;                                           // EAGAIN or EOF
        }
    }
}

void ToolProcess::reap(bool block) {
    if (m_exited) return;
    int status = 0;
    rusage usage{};
    pid_t got;
    do {
        got = ::wait4(m_pid, &status, block ? 0 : WNOHANG, &usage);
    } while (got < 0 && errno == EINTR);
    if (got != m_pid) return;
    m_exited = true;
    m_exit.elapsedSec = monotonicSec() - m_startSec;
    m_exit.cpu.userSec = seconds(usage.ru_utime);
    m_exit.cpu.systemSec = seconds(usage.ru_stime);
    if (WIFEXITED(status)) {
        m_exit.exitCode = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        m_exit.signal = WTERMSIG(status);
    }
    // Whatever is left of the group (workers of a killed master) goes too.
    ::kill(-m_pid, SIGKILL);
}

bool ToolProcess::poll() {
    pump(0);
    reap(false);
    return !m_exited;
}

void ToolProcess::terminate() {
    if (m_exited) return;
    m_exit.stoppedByUs = true;
    ::kill(-m_pid, SIGTERM);
    const double deadline = monotonicSec() + 3.0;
    while (!m_exited && monotonicSec() < deadline) {
        pump(20);
        reap(false);
    }
    if (!m_exited) {
        ::kill(-m_pid, SIGKILL);
        reap(true);
    }
}

ToolExit ToolProcess::wait(const std::atomic<bool>* stop, int timeoutMs, const std::function<void()>& onTick) {
    const double deadline = timeoutMs >= 0 ? monotonicSec() + timeoutMs / 1000.0 : 0;
    while (!m_exited) {
        pump(50);
        reap(false);
        if (m_exited) break;
        if (onTick) onTick();
        const bool stopNow = stop != nullptr && stop->load(std::memory_order_relaxed);
        if (stopNow || (timeoutMs >= 0 && monotonicSec() >= deadline)) terminate();
    }
    // The pipes may still hold the last lines: read until EOF, briefly.
    const double drainUntil = monotonicSec() + 0.5;
    while ((m_outFd >= 0 || m_errFd >= 0) && monotonicSec() < drainUntil) pump(20);
    closeFd(m_outFd);
    closeFd(m_errFd);
    return m_exit;
}

std::string commandText(const std::vector<std::string>& argv) {
    std::string out;
    for (const std::string& word : argv) {
        if (!out.empty()) out += ' ';
        const bool plain = !word.empty() && word.find_first_of(" \t'\"\\$;&|<>*?()[]{}") == std::string::npos;
        if (plain) {
            out += word;
        } else {
            out += '\'';
            for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
            out += '\'';
        }
    }
    return out;
}

}  // namespace smclab::workloads
