// The smclab command line is a table of subcommands; each lives in its own
// cmd_<name>.cpp and is listed once in command_table.cpp.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace smclab::cli {

using Args = std::vector<std::string>;

struct Command {
    const char* name;
    const char* summary;
    int (*run)(const Args& args);  // args exclude the program and command name
};

std::span<const Command> commandTable();
const Command* findCommand(const std::string& name);

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

}  // namespace smclab::cli
