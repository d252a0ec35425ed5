// The clients behind `smclab load`, one file each (args exclude the workload name).
#pragma once

#include "command.h"

namespace smclab::cli {

int loadTcp(const Args& args, bool latency);
int loadHttp(const Args& args);
int loadKv(const Args& args);

}  // namespace smclab::cli
