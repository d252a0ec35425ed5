// Runs smcr_test_peer (or any program) as a separate process and reads the
// "PORT <n>" line it prints once listening. The peer's libsmcr settings come
// from SMCR_SETTINGS (its shared engine reads it): inherited, or set for this
// peer alone with setSettings().
#pragma once

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace smclab::test {

class PeerProcess {
public:
    PeerProcess() = default;
    PeerProcess(const PeerProcess&) = delete;
    PeerProcess& operator=(const PeerProcess&) = delete;
    ~PeerProcess() {
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
        }
        if (m_out >= 0) ::close(m_out);
    }

    // "name=value,..." as the peer's SMCR_SETTINGS ("" = none), instead of
    // this process's; takes effect at start().
    void setSettings(const std::string& settings) { m_settings = settings; }

    // Starts $SMCLAB_BIN_DIR/program with args; false with `error` set on failure.
    bool start(const std::string& program, const std::vector<std::string>& args, std::string* error) {
        const char* dir = std::getenv("SMCLAB_BIN_DIR");
        const std::string path = std::string(dir ? dir : ".") + "/" + program;
        int fds[2];
        if (::pipe(fds) != 0) return fail(error, "pipe");
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
        posix_spawn_file_actions_addclose(&actions, fds[0]);
        std::vector<char*> argv;
        argv.push_back(const_cast<char*>(path.c_str()));
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        std::vector<std::string> envText;
        std::vector<char*> envp;
        for (char** e = environ; *e != nullptr; ++e) {
            if (!m_settings || std::string(*e).rfind("SMCR_SETTINGS=", 0) != 0) envp.push_back(*e);
        }
        if (m_settings && !m_settings->empty()) {
            envText.push_back("SMCR_SETTINGS=" + *m_settings);
            envp.push_back(envText.back().data());
        }
        envp.push_back(nullptr);
        const int rc = ::posix_spawn(&m_pid, path.c_str(), &actions, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        ::close(fds[1]);
        m_out = fds[0];
        if (rc != 0) {
            m_pid = -1;
            return fail(error, "spawn " + path);
        }
        // Read "PORT n\n" (10 s limit).
        std::string line;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (line.find('\n') == std::string::npos) {
            if (std::chrono::steady_clock::now() > deadline) return fail(error, "peer did not print its port");
            char c;
            const ssize_t n = ::read(m_out, &c, 1);
            if (n <= 0) return fail(error, "peer exited before printing its port");
            line.push_back(c);
        }
        if (line.rfind("PORT ", 0) != 0) return fail(error, "unexpected peer output: " + line);
        m_port = static_cast<uint16_t>(std::atoi(line.c_str() + 5));
        return true;
    }

    uint16_t port() const { return m_port; }
    pid_t pid() const { return m_pid; }

    // Exit code, or -1 when it did not exit in time (then it is killed), or
    // 128+signal when killed by a signal.
    int wait(int timeoutMs) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        for (;;) {
            int status = 0;
            const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
            if (r == m_pid) {
                m_pid = -1;
                if (WIFEXITED(status)) return WEXITSTATUS(status);
                return 128 + WTERMSIG(status);
            }
            if (std::chrono::steady_clock::now() > deadline) {
                ::kill(m_pid, SIGKILL);
                ::waitpid(m_pid, nullptr, 0);
                m_pid = -1;
                return -1;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }

    void kill() {
        if (m_pid > 0) ::kill(m_pid, SIGKILL);
    }

private:
    static bool fail(std::string* error, const std::string& what) {
        if (error != nullptr) *error = what;
        return false;
    }
    std::optional<std::string> m_settings;
    pid_t m_pid = -1;
    int m_out = -1;
    uint16_t m_port = 0;
};

}  // namespace smclab::test
