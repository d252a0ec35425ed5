// Embeds libsmcr: a server process and a client process (fork, each with its
// own engine created after the fork as engine.h requires) open one SMC-R
// connection over the sim fabric; the client sends bytes, the server echoes
// them back, and the client checks every byte and that no fallback happened.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <smcr/engine.h>
#include <smcr/listener.h>
#include <smcr/socket.h>

namespace {

constexpr size_t kMessageBytes = 4096;

uint8_t patternByte(size_t i) {
    return static_cast<uint8_t>((i * 131u + 7u) & 0xffu);
}

bool sendAll(smcr::Socket& s, const uint8_t* data, size_t len) {
    size_t done = 0;
    while (done < len) {
        auto w = s.send(data + done, len - done);
        if (!w) {
            std::fprintf(stderr, "send: %s\n", w.error().toString().c_str());
            return false;
        }
        done += w.value();
    }
    return true;
}

bool recvAll(smcr::Socket& s, uint8_t* data, size_t len) {
    size_t done = 0;
    while (done < len) {
        auto r = s.recv(data + done, len - done);
        if (!r) {
            std::fprintf(stderr, "recv: %s\n", r.error().toString().c_str());
            return false;
        }
        if (r.value() == 0) {
            std::fprintf(stderr, "recv: end of stream after %zu of %zu bytes\n", done, len);
            return false;
        }
        done += r.value();
    }
    return true;
}

int runServer(int portPipe) {
    auto engine = smcr::Engine::create();
    if (!engine) {
        std::fprintf(stderr, "server engine: %s\n", engine.error().toString().c_str());
        return 1;
    }
    auto listener = smcr::Listener::listen("127.0.0.1", 0, 8, engine.value());
    if (!listener) {
        std::fprintf(stderr, "listen: %s\n", listener.error().toString().c_str());
        return 1;
    }
    (void)listener->setTimeoutMs(20000);
    const uint16_t port = listener->localPort();
    if (write(portPipe, &port, sizeof port) != static_cast<ssize_t>(sizeof port)) return 1;
    close(portPipe);
    auto conn = listener->accept();
    if (!conn) {
        std::fprintf(stderr, "accept: %s\n", conn.error().toString().c_str());
        return 1;
    }
    std::vector<uint8_t> buf(kMessageBytes);
    if (!recvAll(conn.value(), buf.data(), buf.size())) return 1;
    if (!sendAll(conn.value(), buf.data(), buf.size())) return 1;
    // Wait for the client's close so the echo is fully delivered first.
    uint8_t extra = 0;
    auto r = conn->recv(&extra, 1);
    return (r && r.value() == 0) ? 0 : 1;
}

int runClient(uint16_t port) {
    auto engine = smcr::Engine::create();
    if (!engine) {
        std::fprintf(stderr, "client engine: %s\n", engine.error().toString().c_str());
        return 1;
    }
    smcr::ConnectOptions options;
    options.engine = engine.value();
    auto sock = smcr::Socket::connect("127.0.0.1", port, options);
    if (!sock) {
        std::fprintf(stderr, "connect: %s\n", sock.error().toString().c_str());
        return 1;
    }
    if (sock->fellBack()) {
        std::fprintf(stderr, "connection fell back to TCP\n");
        return 1;
    }
    std::vector<uint8_t> out(kMessageBytes);
    for (size_t i = 0; i < out.size(); ++i) out[i] = patternByte(i);
    if (!sendAll(sock.value(), out.data(), out.size())) return 1;
    std::vector<uint8_t> in(kMessageBytes);
    if (!recvAll(sock.value(), in.data(), in.size())) return 1;
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i] != out[i]) {
            std::fprintf(stderr, "byte %zu: got %u, sent %u\n", i, in[i], out[i]);
            return 1;
        }
    }
    sock->close();
    std::printf("smcr embed: %zu bytes echoed over SMC-R (sim)\n", in.size());
    return 0;
}

}  // namespace

int main() {
    int fds[2];
    if (pipe(fds) != 0) return 1;
    const pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        close(fds[0]);
        _exit(runServer(fds[1]));
    }
    close(fds[1]);
    uint16_t port = 0;
    if (read(fds[0], &port, sizeof port) != static_cast<ssize_t>(sizeof port)) {
        std::fprintf(stderr, "server did not start\n");
        waitpid(child, nullptr, 0);
        return 1;
    }
    const int clientRc = runClient(port);
    int status = 0;
    waitpid(child, &status, 0);
    const bool serverOk = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!serverOk) std::fprintf(stderr, "server process failed\n");
    return (clientRc == 0 && serverOk) ? 0 : 1;
}
