// The nginx.conf a nginx-wrk server run starts nginx with, generated in the
// run's own directory from validated parameters only: worker count,
// sendfile on|off, tcp_nopush, keep-alive (or every connection closed after
// its response), the listen socket's sndbuf/rcvbuf, and one file of the
// given size to serve at /file.bin. Logs go to stderr (the run captures them).
#pragma once

#include <cstdint>
#include <string>

namespace smclab::workloads {

struct NginxConfig {
    std::string dir;         // prefix: nginx.conf, www/, temp dirs, pid file
    std::string listenHost;  // IP literal
    uint16_t port = 0;
    int workers = 1;
    bool sendfile = true;
    bool tcpNopush = true;
    bool keepalive = true;
    uint64_t sndbufBytes = 0;  // 0 = the system's default
    uint64_t rcvbufBytes = 0;
    bool runAsRoot = false;  // the agent is root: workers as root too, so they read dir
};

inline constexpr const char* kNginxFilePath = "/file.bin";

std::string nginxConfigText(const NginxConfig& config);

}  // namespace smclab::workloads
