// Sub-benchmarks of `smclab bench`; one bench_<name>.cpp each, listed in
// the table in cmd_bench.cpp.
#pragma once

#include "command.h"

namespace smclab::cli {

int runBenchFabric(const Args& args);
int runBenchStream(const Args& args);
int runBenchKv(const Args& args);
int runBenchAccept(const Args& args);
int runBenchSendfile(const Args& args);
int runBenchWire(const Args& args);

}  // namespace smclab::cli
