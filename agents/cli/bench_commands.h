// Sub-benchmarks of `smclab bench`; one bench_<name>.cpp each, listed in
// the table in cmd_bench.cpp.
#pragma once

#include <string>

#include "command.h"

namespace smclab::cli {

// A bench command's usage error: "WHO: MESSAGE" and "(see WHO --help)" on
// stderr, WHO being the command ("smclab bench kv"); returns kExitUsage.
int benchUsage(const char* who, const std::string& message);

int runBenchFabric(const Args& args);
int runBenchStream(const Args& args);
int runBenchKv(const Args& args);
int runBenchAccept(const Args& args);
int runBenchSendfile(const Args& args);
int runBenchWire(const Args& args);

}  // namespace smclab::cli
