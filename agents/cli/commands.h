// Entry points of the subcommands; one cmd_<name>.cpp each.
#pragma once

#include <QString>

#include "command.h"

namespace smclab::cli {

int runDemo(const Args& args);
int runFabric(const Args& args);
int runKsmc(const Args& args);
// smclab lab vm: VM lab hosts (cmd_lab_vm.cpp); `labArg` is --lab as given before "vm", or "".
int runLabVm(const Args& args, const QString& labArg);
int runBench(const Args& args);
int runRun(const Args& args);
int runDecode(const Args& args);
int runServe(const Args& args);
int runLoad(const Args& args);
int runList(const Args& args);
int runShow(const Args& args);
int runReport(const Args& args);
int runCompare(const Args& args);
int runDb(const Args& args);
int runStat(const Args& args);
int runSet(const Args& args);
int runLab(const Args& args);

}  // namespace smclab::cli
