#include "nginx_config.h"

namespace smclab::workloads {

std::string nginxConfigText(const NginxConfig& c) {
    const std::string host = c.listenHost.find(':') != std::string::npos ? "[" + c.listenHost + "]" : c.listenHost;
    std::string listen = "listen " + host + ":" + std::to_string(c.port) + " backlog=4096";
    if (c.sndbufBytes > 0) listen += " sndbuf=" + std::to_string(c.sndbufBytes);
    if (c.rcvbufBytes > 0) listen += " rcvbuf=" + std::to_string(c.rcvbufBytes);
    std::string text;
    text += "daemon off;\n";
    text += "master_process on;\n";
    if (c.runAsRoot) text += "user root;\n";
    text += "worker_processes " + std::to_string(c.workers) + ";\n";
    text += "error_log stderr warn;\n";
    text += "pid " + c.dir + "/nginx.pid;\n";
    text += "events { worker_connections 4096; }\n";
    text += "http {\n";
    text += "    access_log off;\n";
    text += "    default_type application/octet-stream;\n";
    text += std::string("    sendfile ") + (c.sendfile ? "on" : "off") + ";\n";
    text += std::string("    tcp_nopush ") + (c.tcpNopush ? "on" : "off") + ";\n";
    // keepalive_timeout 0 closes each connection after its response.
    text += std::string("    keepalive_timeout ") + (c.keepalive ? "65" : "0") + ";\n";
    text += "    keepalive_requests 1000000;\n";
    for (const char* temp : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"}) {
        text += std::string("    ") + temp + "_temp_path " + c.dir + "/tmp;\n";
    }
    text += "    server {\n";
    text += "        " + listen + ";\n";
    text += "        root " + c.dir + "/www;\n";
    text += "    }\n";
    text += "}\n";
    return text;
}

}  // namespace smclab::workloads
