// smclab: the lab's command line. Dispatches to the subcommands listed in
// command_table.cpp.
#include <cstdio>
#include <string>

#include <smcr/version.h>

#include "command.h"

namespace {

void printUsage(FILE* out) {
    std::fprintf(out, "usage: smclab COMMAND [options]\n\ncommands:\n");
    for (const auto& command : smclab::cli::commandTable()) {
        std::fprintf(out, "  %-10s %s\n", command.name, command.summary);
    }
    std::fprintf(out, "\n'smclab COMMAND --help' describes one command.\n");
}

}  // namespace

int main(int argc, char** argv) {
    using namespace smclab::cli;
    if (argc < 2) {
        printUsage(stderr);
        return kExitUsage;
    }
    const std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        printUsage(stdout);
        return kExitOk;
    }
    if (name == "--version" || name == "-V") {
        std::printf("smclab %s\n", smcr::versionString());
        return kExitOk;
    }
    const Command* command = findCommand(name);
    if (command == nullptr) {
        std::fprintf(stderr, "smclab: unknown command '%s'\n\n", name.c_str());
        printUsage(stderr);
        return kExitUsage;
    }
    Args args(argv + 2, argv + argc);
    return command->run(args);
}
