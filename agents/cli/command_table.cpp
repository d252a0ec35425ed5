#include "command.h"
#include "commands.h"

namespace smclab::cli {

namespace {

// One line per subcommand, in the order `smclab --help` lists them.
const Command kCommands[] = {
    {"demo", "run the main job on this machine (two local agents, sim fabric)", runDemo},
    {"fabric", "list the sim devices and any RDMA devices on this host", runFabric},
    {"bench", "local benchmarks with two processes (fabric, ...), tool-style output", runBench},
    {"run", "run a preset or campaign file on agent pairs, store it, print the tables", runRun},
    {"list", "list the campaigns in the results database", runList},
    {"show", "show one campaign: matrix, settings per column, runs", runShow},
    {"report", "a campaign's tables: cover-letter text, md, csv, json or html", runReport},
    {"compare", "two campaigns' tables side by side", runCompare},
    {"lab", "agents on lab hosts over SSH: deploy, status, stop", runLab},
    {"db", "copy campaigns between results databases (SQLite files, PostgreSQL)", runDb},
    {"ksmc", "the host kernel's SMC: stats and fallbacks, UEIDs, pnet table (smc-tools' smcr)", runKsmc},
    {"decode", "decode CLC/LLC/CDC bytes like a protocol analyser", runDecode},
    {"serve", "one server side of a workload (tcp, http, kv) for real tools or smclab load", runServe},
    {"load", "one client side of a workload (tcp_bw, tcp_lat, http, kv), tool-style output", runLoad},
    {"stat", "live counters of a program running under smcr_run (PID or --all)", runStat},
    {"set", "change a libsmcr setting live in a program running under smcr_run", runSet},
};

}  // namespace

std::span<const Command> commandTable() {
    return kCommands;
}

const Command* findCommand(const std::string& name) {
    for (const Command& command : kCommands) {
        if (name == command.name) return &command;
    }
    return nullptr;
}

}  // namespace smclab::cli
