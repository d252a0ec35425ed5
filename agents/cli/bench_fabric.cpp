// smclab bench fabric: ib_write_lat / ib_write_bw / ib_send_lat-style runs
// over a fabric backend (sim by default), then the host's physical limits
// and the ratios against the targets.
#include <cstdio>
#include <string>

#include <smcr/fabric_bench.h>

#include "args.h"
#include "bench_commands.h"

namespace smclab::cli {

namespace {

constexpr const char* kWho = "smclab bench fabric";

void printHelp() {
    std::printf(
        "usage: smclab bench fabric [--link ideal|cx4-25g|cx4lx-vf] [--poll busy|event] [-t N] [--test LIST]\n"
        "                           [--sizes LIST] [--backend sim|verbs] [--no-pin]\n"
        "\n"
        "Client and server run as two processes on this host, perftest-style:\n"
        "  write_lat  RDMA WRITE ping-pong, each side spins on its buffer's last byte (ib_write_lat)\n"
        "  write_bw   RDMA WRITE stream, tx depth 128, every 100th signaled (ib_write_bw)\n"
        "  send_lat   SEND/RECV ping-pong, receive completions polled or awaited (ib_send_lat)\n"
        "then measures this host's limits (cache-line ping-pong between two processes,\n"
        "memcpy bandwidth) and prints the ratios against the targets.\n"
        "\n"
        "options:\n"
        "  --link NAME        sim link model: ideal (default) or cx4-25g\n"
        "  --poll MODE        busy (default) or event (wait on the completion channel)\n"
        "  -t, --iters N      latency iterations per size (default 1000; bandwidth uses 5x)\n"
        "  --test LIST        comma list of write_lat,write_bw,send_lat (default all)\n"
        "  --sizes LIST       comma list of sizes (default 2..64K, powers of two)\n"
        "  --backend NAME     fabric backend (default sim)\n"
        "  --no-pin           do not pin client and server to CPUs 0 and 1\n");
}

}  // namespace

int runBenchFabric(const Args& args) {
    namespace fb = smcr::fabric::bench;
    fb::Options options;
    std::string link = "ideal";
    ArgCursor cursor(args);
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printHelp();
            return kExitOk;
        }
        if (auto v = cursor.takeValue("--link")) {
            link = *v;
        } else if (auto p = cursor.takeValue("--poll")) {
            if (*p != "busy" && *p != "event") return benchUsage(kWho, "--poll must be busy or event");
            options.eventPoll = *p == "event";
        } else if (auto t = cursor.takeValue("--iters")) {
            auto n = parseInt(*t);
            if (!n || *n < 1 || *n > 10000000) return benchUsage(kWho, "--iters needs a count 1..10000000");
            options.latIterations = static_cast<uint32_t>(*n);
            options.bwIterations = static_cast<uint32_t>(*n * 5);
        } else if (auto t2 = cursor.takeValue("-t")) {
            auto n = parseInt(*t2);
            if (!n || *n < 1 || *n > 10000000) return benchUsage(kWho, "-t needs a count 1..10000000");
            options.latIterations = static_cast<uint32_t>(*n);
            options.bwIterations = static_cast<uint32_t>(*n * 5);
        } else if (auto tests = cursor.takeValue("--test")) {
            options.tests.clear();
            for (const std::string& name : splitList(*tests)) {
                if (name.empty()) continue;  // "a,,b" and a trailing comma are fine here
                if (name == "write_lat") {
                    options.tests.push_back(fb::Test::writeLat);
                } else if (name == "write_bw") {
                    options.tests.push_back(fb::Test::writeBw);
                } else if (name == "send_lat") {
                    options.tests.push_back(fb::Test::sendLat);
                } else {
                    return benchUsage(kWho, "unknown test '" + name + "' (write_lat, write_bw, send_lat)");
                }
            }
            if (options.tests.empty()) return benchUsage(kWho, "--test needs at least one test");
        } else if (auto sizes = cursor.takeValue("--sizes")) {
            for (const std::string& text : splitList(*sizes)) {
                if (text.empty()) continue;
                auto size = parseSize(text);
                if (!size || *size < 2 || *size > (1u << 24))
                    return benchUsage(kWho, "size '" + text + "' outside 2..16M");
                options.sizes.push_back(static_cast<uint32_t>(*size));
            }
        } else if (auto backend = cursor.takeValue("--backend")) {
            options.backend = *backend;
        } else if (cursor.takeFlag("--no-pin")) {
            options.pinCpus = false;
        } else if (!cursor.error().empty()) {
            return benchUsage(kWho, cursor.error());
        } else {
            return benchUsage(kWho, cursor.unknownOption());
        }
    }
    if (!cursor.error().empty()) return benchUsage(kWho, cursor.error());
    if (options.backend == "sim") {
        options.open["link"] = link;
    } else if (link != "ideal") {
        return benchUsage(kWho, "--link applies to the sim backend only");
    }
    return fb::runAndReport(options, stdout, stderr) ? kExitOk : kExitFailure;
}

}  // namespace smclab::cli
