// smclab load tcp_bw|tcp_lat|http|kv: one client side of a workload, with
// the options and the output of the tool users know (qperf, wrk,
// redis-benchmark). Pairs with `smclab serve` or the real servers.
#include <cstdio>

#include "commands.h"
#include "load_commands.h"
#include "workload_cli.h"

namespace smclab::cli {

int runLoad(const Args& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::printf(
            "usage: smclab load tcp_bw|tcp_lat|http|kv --connect ADDR:PORT [--transport tcp|smcr|ksmc] [options]\n"
            "\n"
            "  tcp_bw, tcp_lat  qperf-style: -m SIZE -t TIME -oo msg_size:1:64K:*2 -vu -vs -vt -vl -uu\n"
            "  http             wrk-style: -t THREADS -c CONNECTIONS -d TIME --latency -H HEADER --timeout T --path P\n"
            "  kv               redis-benchmark-style: -c -n -d -P --threads -t set,get -q --csv -r KEYSPACE\n"
            "\n"
            "'smclab load WORKLOAD --help' lists a workload's options.\n");
        return args.empty() ? kExitUsage : kExitOk;
    }
    const Args rest(args.begin() + 1, args.end());
    if (args[0] == "tcp_bw") return loadTcp(rest, false);
    if (args[0] == "tcp_lat") return loadTcp(rest, true);
    if (args[0] == "http") return loadHttp(rest);
    if (args[0] == "kv") return loadKv(rest);
    return usageError("load", "unknown workload '" + args[0] + "' (known: tcp_bw, tcp_lat, http, kv)");
}

}  // namespace smclab::cli
