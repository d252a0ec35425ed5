// The libsmcr end of the VM lab's interop tests, the counterpart of
// echo_conns.py (which runs the kernel's end under ksmc_run): the same
// modes, the server echoing, the client checking every byte that comes
// back. Settings come from SMCR_SETTINGS (lab.fabric=verbs, lab.ueid=...).
//   smcr_interop_peer server ADDR PORT [--close-after BYTES]
//   smcr_interop_peer client ADDR PORT [--conns N] [--parallel P] [--bytes B] [--server-closes]
//                            [--pause-ms MS]  (each connection idle that long halfway)
//                            [--await-rkey-deletes]  (the counters once the peer's DELETE_RKEYs are in)
//   smcr_interop_peer stream ADDR PORT [--pid-file FILE]
// Each connection's end is printed as "end eof|closed-first|error NAME
// sent=.. received=.. after_ms=..", the client's result as "ok ..." or
// "FAIL ...", then "stat NAME VALUE" lines of the engine's counters and
// "conns smcr=N fallback=M" (with the fallback reasons seen).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/socket.h>
#include <unistd.h>

#include <smcr/engine.h>
#include <smcr/listener.h>
#include <smcr/socket.h>

#include "stream_pattern.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
    std::string mode;
    std::string addr;
    uint16_t port = 0;
    uint64_t closeAfter = 0;
    int conns = 1;
    int parallel = 1;
    size_t bytes = 4096;
    bool serverCloses = false;
    int pauseMs = 0;
    bool awaitRkeyDeletes = false;
    std::string pidFile;
};

std::mutex g_printLock;

void say(const std::string& text) {
    std::lock_guard<std::mutex> lock(g_printLock);
    std::printf("%s\n", text.c_str());
    std::fflush(stdout);
}

std::string ended(const std::string& how, uint64_t sent, uint64_t received, Clock::time_point since) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count();
    return "end " + how + " sent=" + std::to_string(sent) + " received=" + std::to_string(received) +
           " after_ms=" + std::to_string(ms);
}

// One word, so that a test reads it as the end line's second field.
std::string errorName(const smcr::Error& e) {
    std::string name = smcr::errcName(e.code);
    for (char& c : name) {
        if (c == ' ') c = '_';
    }
    return "error " + name;
}

uint64_t engineStat(const std::string& name) {
    auto engine = smcr::Engine::shared();
    if (!engine) return 0;
    for (const auto& [n, value] : engine.value()->stats().flatten()) {
        if (n == name) return value;
    }
    return 0;
}

bool sendAll(smcr::Socket& s, const uint8_t* data, size_t len, std::string* why) {
    size_t done = 0;
    while (done < len) {
        auto n = s.send(data + done, len - done);
        if (!n) {
            *why = errorName(n.error());
            return false;
        }
        done += n.value();
    }
    return true;
}

void echo(smcr::Socket s, uint64_t closeAfter) {
    std::vector<uint8_t> buf(65536);
    uint64_t sent = 0;
    uint64_t received = 0;
    const auto start = Clock::now();
    std::string how = "eof";
    for (;;) {
        size_t want = buf.size();
        if (closeAfter != 0) {
            want = std::min<uint64_t>(want, closeAfter - received);
            if (want == 0) {
                (void)s.shutdown(SHUT_WR);  // we close first
                while (true) {
                    auto n = s.recv(buf.data(), buf.size());
                    if (!n || n.value() == 0) break;
                }
                how = "closed-first";
                break;
            }
        }
        auto n = s.recv(buf.data(), want);
        if (!n) {
            how = errorName(n.error());
            break;
        }
        if (n.value() == 0) break;
        received += n.value();
        std::string why;
        if (!sendAll(s, buf.data(), n.value(), &why)) {
            how = why;
            break;
        }
        sent += n.value();
    }
    say(ended(how, sent, received, start));
    s.close();
}

int serve(const Args& a) {
    auto l = smcr::Listener::listen(a.addr, a.port, 256);
    if (!l) {
        say("FAIL listen: " + l.error().toString());
        return 1;
    }
    say("listening pid=" + std::to_string(::getpid()));
    for (;;) {
        auto s = l->accept();
        if (!s) {
            say("FAIL accept: " + s.error().toString());
            return 1;
        }
        // The engine's counters as they stand, for a test that cannot ask a running server.
        say((s->fellBack() ? "accepted tcp reason=" + std::to_string(s->fallbackReason()) : "accepted smcr") +
            " lgr_created=" + std::to_string(engineStat("smcr.lgr_created")) +
            " lgr_reuses=" + std::to_string(engineStat("smcr.lgr_reuses")) +
            " credit_links=" + std::to_string(engineStat("smcr.credit_links")) +
            " syn_option_accepts=" + std::to_string(engineStat("smcr.syn_option_accepts")) +
            " unknown_token_dropped=" + std::to_string(engineStat("smcr.unknown_token_dropped")) +
            " confirm_rkey_rcvd=" + std::to_string(engineStat("smcr.confirm_rkey_rcvd")) +
            " confirm_rkey_answered=" + std::to_string(engineStat("smcr.confirm_rkey_answered")) +
            " delete_rkey_rcvd=" + std::to_string(engineStat("smcr.delete_rkey_rcvd")) +
            " delete_rkey_answered=" + std::to_string(engineStat("smcr.delete_rkey_answered")) +
            " hs_errors=" + std::to_string(engineStat("smcr.hs_errors")));
        std::thread(echo, std::move(s.value()), a.closeAfter).detach();
    }
}

struct Tally {
    std::mutex lock;
    std::vector<std::string> failures;
    int smcr = 0;
    int fallback = 0;
    std::map<uint32_t, int> reasons;
    int64_t connectMsMax = 0;  // the slowest connect(), the handshake with it
    void fail(const std::string& f) {
        std::lock_guard<std::mutex> g(lock);
        failures.push_back(f);
    }
};

void oneConnection(const Args& a, int index, Tally& t) {
    const std::string name = "connection " + std::to_string(index);
    const auto began = Clock::now();
    auto s = smcr::Socket::connect(a.addr, a.port);
    if (!s) return t.fail(name + ": connect: " + s.error().toString());
    const auto connectMs = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count();
    {
        std::lock_guard<std::mutex> g(t.lock);
        t.connectMsMax = std::max<int64_t>(t.connectMsMax, connectMs);
        if (s->fellBack()) {
            ++t.fallback;
            ++t.reasons[s->fallbackReason()];
        } else {
            ++t.smcr;
        }
    }
    (void)s->setTimeoutMs(20000);  // a hang shows as a timeout, not a stuck test
    std::vector<uint8_t> out(a.bytes);
    smclab::test::fillPattern(static_cast<uint64_t>(index) + 1, 0, out.data(), out.size());
    std::vector<uint8_t> back(a.bytes);
    size_t got = 0;
    std::string sendWhy;
    std::string recvWhy;
    // Both halves are echoed before the next goes; with a pause between
    // them the link lies idle past the peer's TEST_LINK time.
    const size_t half = a.pauseMs > 0 ? out.size() / 2 : out.size();
    size_t from = 0;
    for (const size_t upTo : {half, out.size()}) {
        if (upTo <= from || !recvWhy.empty()) continue;
        if (from != 0) std::this_thread::sleep_for(std::chrono::milliseconds(a.pauseMs));
        std::thread sender([&] { (void)sendAll(s.value(), out.data() + from, upTo - from, &sendWhy); });
        while (got < upTo) {
            auto n = s->recv(back.data() + got, upTo - got);
            if (!n) {
                recvWhy = errorName(n.error());
                break;
            }
            if (n.value() == 0) {
                recvWhy = "eof";
                break;
            }
            got += n.value();
        }
        sender.join();
        from = upTo;
    }
    const size_t at = smclab::test::checkPattern(static_cast<uint64_t>(index) + 1, 0, back.data(), got);
    if (got != back.size() || at != got) {
        s->close();
        return t.fail(name + ": " + std::to_string(got) + " of " + std::to_string(back.size()) +
                      " bytes back, first difference at " + std::to_string(at) + " " + sendWhy + " " + recvWhy);
    }
    if (!a.serverCloses) (void)s->shutdown(SHUT_WR);  // we close first: the server sees eof, then closes
    uint8_t extra = 0;
    auto n = s->recv(&extra, 1);
    if (!n) {
        t.fail(name + ": at the close: " + errorName(n.error()));
    } else if (n.value() != 0) {
        t.fail(name + ": bytes after the echo");
    }
    s->close();
}

// A kernel peer sends DELETE_RKEY as it frees each connection (smc_core.c
// smcr_buf_unuse), after the close that ended it here: with
// awaitDeletes, up to 5 s for one per SMC connection before the counters
// are read, and how long that took.
void printStats(int awaitDeletes) {
    auto engine = smcr::Engine::shared();
    if (!engine) return;
    (void)engine.value()->flushClosed(3000);
    if (awaitDeletes > 0) {
        const auto began = Clock::now();
        while (engine.value()->stats().peerDeleteRkeys < static_cast<uint64_t>(awaitDeletes) &&
               Clock::now() - began < std::chrono::seconds(5))
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        say("rkey_deletes_awaited_ms=" +
            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began).count()));
    }
    for (const auto& [name, value] : engine.value()->stats().flatten()) {
        if (value != 0) say("stat " + name + " " + std::to_string(value));
    }
}

int client(const Args& a) {
    Tally t;
    // The engine (and its device) before the clock starts: the connect times are the handshakes'.
    if (auto engine = smcr::Engine::shared(); !engine) say("FAIL engine: " + engine.error().toString());
    std::atomic<int> next{0};
    const auto start = Clock::now();
    std::vector<std::thread> workers;
    workers.reserve(static_cast<size_t>(a.parallel));
    for (int w = 0; w < a.parallel; ++w) {
        workers.emplace_back([&] {
            for (int i = next++; i < a.conns; i = next++) oneConnection(a, i, t);
        });
    }
    for (auto& w : workers) w.join();
    std::string line = "conns smcr=" + std::to_string(t.smcr) + " fallback=" + std::to_string(t.fallback);
    for (const auto& [reason, count] : t.reasons) {
        char code[16];
        std::snprintf(code, sizeof code, "0x%08x", reason);
        line += " " + std::string(code) + "=" + std::to_string(count);
    }
    say(line);
    say("connect_ms max=" + std::to_string(t.connectMsMax));
    printStats(a.awaitRkeyDeletes ? t.smcr : 0);
    for (size_t i = 0; i < t.failures.size() && i < 10; ++i) say("FAIL " + t.failures[i]);
    if (!t.failures.empty()) {
        say("FAIL " + std::to_string(t.failures.size()) + " of " + std::to_string(a.conns) + " connections");
        return 1;
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    say("ok connections=" + std::to_string(a.conns) + " bytes=" + std::to_string(a.bytes) + " each, checked, in " +
        std::to_string(ms) + " ms");
    return 0;
}

// One connection that keeps both directions busy until it breaks.
int stream(const Args& a) {
    auto s = smcr::Socket::connect(a.addr, a.port);
    if (!s) {
        say("FAIL connect: " + s.error().toString());
        return 1;
    }
    say(s->fellBack() ? "connected tcp" : "connected smcr");
    (void)s->setTimeoutMs(20000);
    if (!a.pidFile.empty()) {
        if (FILE* f = std::fopen(a.pidFile.c_str(), "w")) {
            std::fprintf(f, "%d", ::getpid());
            std::fclose(f);
        }
    }
    std::vector<uint8_t> chunk(4096);
    std::vector<uint8_t> back(chunk.size());
    uint64_t sent = 0;
    uint64_t received = 0;
    auto start = Clock::now();
    for (;;) {
        smclab::test::fillPattern(9, sent, chunk.data(), chunk.size());
        std::string why;
        if (!sendAll(s.value(), chunk.data(), chunk.size(), &why)) {
            say(ended(why, sent, received, start));
            return 0;
        }
        sent += chunk.size();
        size_t got = 0;
        while (got < back.size()) {
            auto n = s->recv(back.data() + got, back.size() - got);
            if (!n) {
                say(ended(errorName(n.error()), sent, received, start));
                return 0;
            }
            if (n.value() == 0) {
                say(ended("eof", sent, received, start));
                return 0;
            }
            got += n.value();
        }
        if (smclab::test::checkPattern(9, received, back.data(), back.size()) != back.size()) {
            say("FAIL the echo differs after " + std::to_string(received) + " bytes");
            return 1;
        }
        received += back.size();
        if (received == 32 * chunk.size()) {
            say("streaming");
            start = Clock::now();
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    if (argc < 4) {
        std::fprintf(stderr, "usage: smcr_interop_peer server|client|stream ADDR PORT [options]\n");
        return 2;
    }
    a.mode = argv[1];
    a.addr = argv[2];
    a.port = static_cast<uint16_t>(std::atoi(argv[3]));
    for (int i = 4; i < argc; ++i) {
        const std::string opt = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : "";
        if (opt == "--server-closes") {
            a.serverCloses = true;
            continue;
        }
        if (opt == "--await-rkey-deletes") {
            a.awaitRkeyDeletes = true;
            continue;
        }
        ++i;
        if (opt == "--close-after") {
            a.closeAfter = std::strtoull(value, nullptr, 10);
        } else if (opt == "--conns") {
            a.conns = std::atoi(value);
        } else if (opt == "--parallel") {
            a.parallel = std::max(1, std::atoi(value));
        } else if (opt == "--bytes") {
            a.bytes = std::strtoull(value, nullptr, 10);
        } else if (opt == "--pause-ms") {
            a.pauseMs = std::atoi(value);
        } else if (opt == "--pid-file") {
            a.pidFile = value;
        } else {
            std::fprintf(stderr, "smcr_interop_peer: unknown option %s\n", opt.c_str());
            return 2;
        }
    }
    if (a.mode == "server") return serve(a);
    if (a.mode == "client") return client(a);
    if (a.mode == "stream") return stream(a);
    std::fprintf(stderr, "smcr_interop_peer: unknown mode %s\n", a.mode.c_str());
    return 2;
}
