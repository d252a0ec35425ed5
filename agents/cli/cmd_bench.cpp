// smclab bench SUB: local, agent-free benchmarks with client and server as
// two processes on this host. A sub-benchmark is one line in kBenches.
#include <cstdio>
#include <string>

#include "bench_commands.h"
#include "commands.h"

namespace smclab::cli {

namespace {

const Command kBenches[] = {
    {"fabric", "perftest-style write_lat, write_bw, send_lat over a fabric backend", runBenchFabric},
    {"stream", "qperf-style tcp_bw / tcp_lat over libsmcr (SMC-R, sim) or TCP, --compare", runBenchStream},
    {"kv", "redis-benchmark-style SET/GET, --preset credits: RQ credits off/on, rx_backlog, TCP (RNR)", runBenchKv},
    {"accept", "short TCP connections: kernel listener vs libsmcr listener, fast fallback off/on", runBenchAccept},
    {"sendfile", "nginx-style TCP_CORK + sendfile requests/s over libsmcr (fix, cork timer, copy) and TCP",
     runBenchSendfile},
    {"wire", "qperf and tcp_bw over the local lab's veth against loopback: is the TCP column the host's TCP?",
     runBenchWire},
};

void printBenchUsage(FILE* out) {
    std::fprintf(out, "usage: smclab bench SUB [options]\n\nsub-benchmarks:\n");
    for (const Command& bench : kBenches) std::fprintf(out, "  %-10s %s\n", bench.name, bench.summary);
    std::fprintf(out, "\n'smclab bench SUB --help' describes one.\n");
}

}  // namespace

int runBench(const Args& args) {
    if (args.empty()) {
        printBenchUsage(stderr);
        return kExitUsage;
    }
    if (args[0] == "--help" || args[0] == "-h") {
        printBenchUsage(stdout);
        return kExitOk;
    }
    for (const Command& bench : kBenches) {
        if (args[0] == bench.name) return bench.run(Args(args.begin() + 1, args.end()));
    }
    std::fprintf(stderr, "smclab bench: unknown sub-benchmark '%s'\n\n", args[0].c_str());
    printBenchUsage(stderr);
    return kExitUsage;
}

int benchUsage(const char* who, const std::string& message) {
    std::fprintf(stderr, "%s: %s\n(see %s --help)\n", who, message.c_str(), who);
    return kExitUsage;
}

}  // namespace smclab::cli
