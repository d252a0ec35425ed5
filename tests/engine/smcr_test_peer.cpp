// The other process of the engine tests: a libsmcr server in one of a few
// modes. Prints "PORT <n>" on stdout once listening, then serves.
//   duplex BYTES SEED   one connection: send stream SEED, verify stream SEED+1, both BYTES long
//   echo CONNS          echo on CONNS connections (one Poller thread), exit when all closed
//   stream              one connection: send and read forever (for the kill test)
//   send-close BYTES    one connection: send BYTES of stream 7, then close
//   send-exit BYTES     the same in messages of at most 4 KiB, then close and exit at once
//   sink BYTES SEED     one connection: verify stream SEED, exactly BYTES long, until EOF
// Exit code 0 = everything verified; errors go to stderr.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <smcr/listener.h>
#include <smcr/poller.h>
#include <smcr/socket.h>

#include "stream_pattern.h"
#include "stream_transfer.h"

using namespace smclab::test;

namespace {

int die(const std::string& what, const smcr::Error& e) {
    std::fprintf(stderr, "peer: %s: %s\n", what.c_str(), e.toString().c_str());
    return 1;
}

int runDuplex(smcr::Listener& l, uint64_t bytes, uint64_t seed) {
    auto s = l.accept();
    if (!s) return die("accept", s.error());
    if (s->fellBack()) std::fprintf(stderr, "peer: fell back (0x%08x)\n", s->fallbackReason());
    const DuplexRun run = smclab::test::runDuplex(s.value(), bytes, seed, seed + 1);
    // Said before the close: a failed run's close resets the connection, and
    // the test that sees the reset may kill us before a later print.
    if (!run.sendError.empty()) std::fprintf(stderr, "peer: %s\n", run.sendError.c_str());
    if (!run.receive.error.empty()) std::fprintf(stderr, "peer: %s\n", run.receive.error.c_str());
    s->close();
    return run.error().empty() ? 0 : 1;
}

int runEcho(smcr::Listener& l, int conns) {
    auto poller = smcr::Poller::create();
    if (!poller) return die("poller", poller.error());
    if (auto s = poller->add(l, POLLIN, nullptr); !s) return die("poller add", s.error());
    struct Conn {
        smcr::Socket sock;
        std::vector<uint8_t> pending;
    };
    std::map<void*, std::unique_ptr<Conn>> open;
    int accepted = 0;
    int closed = 0;
    std::vector<smcr::PollEvent> events(256);
    std::vector<uint8_t> buf(256 * 1024);
    (void)l.setNonBlocking(true);
    while (closed < conns) {
        auto n = poller->wait(events, 10000);
        if (!n) return die("wait", n.error());
        if (n.value() == 0) {
            std::fprintf(stderr, "peer: echo idle for 10 s (%d accepted, %d closed)\n", accepted, closed);
            for (auto& [key, c] : open) {
                auto r = c->sock.recv(buf.data(), buf.size());
                const smcr::ConnectionStats st = c->sock.stats();
                std::fprintf(stderr, "peer:   open connection: pending %zu, recv %s, cdc rx %llu tx %llu\n",
                             c->pending.size(), r ? std::to_string(r.value()).c_str() : r.error().toString().c_str(),
                             static_cast<unsigned long long>(st.cdcReceived),
                             static_cast<unsigned long long>(st.cdcSent));
            }
            return 1;
        }
        for (size_t i = 0; i < n.value(); ++i) {
            if (events[i].userData == nullptr) {
                for (;;) {
                    auto s = l.accept();
                    if (!s) break;
                    (void)s->setNonBlocking(true);
                    auto c = std::make_unique<Conn>();
                    c->sock = s.value();
                    void* key = c.get();
                    (void)poller->add(c->sock, POLLIN, key);
                    open[key] = std::move(c);
                    ++accepted;
                }
                continue;
            }
            auto it = open.find(events[i].userData);
            if (it == open.end()) continue;
            Conn& c = *it->second;
            bool done = false;
            if (!c.pending.empty()) {
                auto w = c.sock.send(c.pending.data(), c.pending.size());
                if (w)
                    c.pending.erase(c.pending.begin(), c.pending.begin() + static_cast<long>(w.value()));
                else if (w.error().code != smcr::Errc::wouldBlock)
                    done = true;
            }
            while (!done && c.pending.empty()) {
                auto r = c.sock.recv(buf.data(), buf.size());
                if (!r) {
                    if (r.error().code != smcr::Errc::wouldBlock) done = true;
                    break;
                }
                if (r.value() == 0) {
                    done = true;
                    break;
                }
                auto w = c.sock.send(buf.data(), r.value());
                const size_t sent = w ? w.value() : 0;
                if (!w && w.error().code != smcr::Errc::wouldBlock) done = true;
                if (sent < r.value())
                    c.pending.assign(buf.begin() + static_cast<long>(sent), buf.begin() + static_cast<long>(r.value()));
            }
            if (done) {
                (void)poller->remove(c.sock);
                c.sock.close();
                open.erase(it);
                ++closed;
            } else {
                (void)poller->modify(c.sock, c.pending.empty() ? POLLIN : (POLLIN | POLLOUT), &c);
            }
        }
    }
    return 0;
}

int runStream(smcr::Listener& l) {
    auto s = l.accept();
    if (!s) return die("accept", s.error());
    std::thread reader([&] {
        std::vector<uint8_t> buf(65536);
        for (;;) {
            auto r = s->recv(buf.data(), buf.size());
            if (!r || r.value() == 0) return;
        }
    });
    std::vector<uint8_t> buf(65536, 0x5A);
    for (;;) {
        if (!s->send(buf.data(), buf.size())) break;
    }
    reader.join();
    return 0;
}

int runSendClose(smcr::Listener& l, uint64_t bytes) {
    auto s = l.accept();
    if (!s) return die("accept", s.error());
    const std::string err = sendStream(s.value(), 7, bytes);
    if (!err.empty()) {
        std::fprintf(stderr, "peer: %s\n", err.c_str());
        return 1;
    }
    s->close();
    // Stay until the client closed too, so the close is orderly on both ends.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    return 0;
}

// Sends, closes and returns from main at once, as a program does: what the
// close still owes the client must leave before the process (the shared
// engine's flush at exit).
int runSendExit(smcr::Listener& l, uint64_t bytes) {
    auto s = l.accept();
    if (!s) return die("accept", s.error());
    const std::string err = sendStream(s.value(), 7, bytes, 4096);
    if (!err.empty()) {
        std::fprintf(stderr, "peer: %s\n", err.c_str());
        return 1;
    }
    s->close();
    return 0;
}

}  // namespace

int runSink(smcr::Listener& l, uint64_t bytes, uint64_t seed) {
    auto s = l.accept();
    if (!s) return die("accept", s.error());
    const ReceiveRun run = receiveStream(s.value(), seed, bytes);
    if (!run.error.empty()) std::fprintf(stderr, "peer: %s\n", run.error.c_str());
    s->close();
    return run.error.empty() ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: smcr_test_peer duplex BYTES SEED | echo CONNS | stream | send-close BYTES | send-exit "
                     "BYTES | sink BYTES SEED\n");
        return 2;
    }
    const std::string mode = argv[1];
    auto l = smcr::Listener::listen("127.0.0.1", 0);
    if (!l) return die("listen", l.error());
    std::printf("PORT %u\n", l->localPort());
    std::fflush(stdout);
    if (mode == "duplex" && argc == 4)
        return runDuplex(l.value(), std::strtoull(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10));
    if (mode == "echo" && argc == 3) return runEcho(l.value(), std::atoi(argv[2]));
    if (mode == "stream") return runStream(l.value());
    if (mode == "sink" && argc == 4)
        return runSink(l.value(), std::strtoull(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10));
    if (mode == "send-close" && argc == 3) return runSendClose(l.value(), std::strtoull(argv[2], nullptr, 10));
    if (mode == "send-exit" && argc == 3) return runSendExit(l.value(), std::strtoull(argv[2], nullptr, 10));
    std::fprintf(stderr, "smcr_test_peer: bad arguments\n");
    return 2;
}
