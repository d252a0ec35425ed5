// smclab stat PID|--all and smclab set PID NAME=VALUE: a running program
// under smcr_run looked at and steered from outside, like `smcd stats` and
// sysctl for the kernel, through its control endpoint
// (engine/src/preload/control_path.h).
#include <cstdio>
#include <cstdlib>
#include <string>

#include <control_path.h>

#include <smcr/settings.h>

#include "commands.h"

namespace smclab::cli {

namespace {

bool parsePid(const std::string& text, pid_t& pid) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || v <= 0) return false;
    pid = static_cast<pid_t>(v);
    return true;
}

}  // namespace

int runStat(const Args& args) {
    if (args.size() != 1 || args[0] == "--help" || args[0] == "-h") {
        std::printf(
            "usage: smclab stat PID|--all\n"
            "\n"
            "Prints the live counters of a program running under smcr_run (the JSON of its\n"
            "--stats file: SMC-R and TCP connections, TCP by reason, application bytes over\n"
            "SMC-R and TCP, every engine counter); --all: of every such process on this host.\n");
        return args.size() == 1 ? kExitOk : kExitUsage;
    }
    if (args[0] == "--all") {
        int shown = 0;
        for (const pid_t pid : smcr::preload::controlPids()) {
            auto answer = smcr::preload::controlRequest(pid, "stat\n");
            if (!answer) continue;  // gone since it registered
            std::printf("%s", answer.value().c_str());
            ++shown;
        }
        if (shown == 0) std::fprintf(stderr, "smclab stat: no process runs under smcr_run here\n");
        return kExitOk;
    }
    pid_t pid = 0;
    if (!parsePid(args[0], pid)) {
        std::fprintf(stderr, "smclab stat: '%s' is not a pid\n", args[0].c_str());
        return kExitUsage;
    }
    auto answer = smcr::preload::controlRequest(pid, "stat\n");
    if (!answer) {
        std::fprintf(stderr, "smclab stat: %s\n", answer.error().message.c_str());
        return kExitFailure;
    }
    std::printf("%s", answer.value().c_str());
    return kExitOk;
}

int runSet(const Args& args) {
    if (args.size() != 2 || args[1].find('=') == std::string::npos) {
        std::printf(
            "usage: smclab set PID NAME=VALUE\n"
            "\n"
            "Changes a libsmcr setting live in a program running under smcr_run (kernel\n"
            "sysctl names: autocorking_size, lab.wnd_update_limit, lab.cq_mode,\n"
            "lab.tx_defer_to_owner, ...). Each setting applies at once, to new connections\n"
            "or to new link groups, as `smcr_run --list-settings` lists.\n");
        return args.empty() ? kExitOk : kExitUsage;
    }
    pid_t pid = 0;
    if (!parsePid(args[0], pid)) {
        std::fprintf(stderr, "smclab set: '%s' is not a pid\n", args[0].c_str());
        return kExitUsage;
    }
    const size_t eq = args[1].find('=');
    const std::string name = args[1].substr(0, eq);
    const std::string value = args[1].substr(eq + 1);
    smcr::Settings check;  // a clear error here, before the process is asked
    if (auto s = check.set(name, value); !s) {
        std::fprintf(stderr, "smclab set: %s\n", s.error().message.c_str());
        return kExitUsage;
    }
    auto answer = smcr::preload::controlRequest(pid, "set " + name + " " + value + "\n");
    if (!answer) {
        std::fprintf(stderr, "smclab set: %s\n", answer.error().message.c_str());
        return kExitFailure;
    }
    if (answer.value().rfind("ok ", 0) != 0) {
        std::fprintf(stderr, "smclab set: process %d: %s", static_cast<int>(pid), answer.value().c_str() + 6);
        return kExitFailure;
    }
    std::printf("%s", answer.value().c_str());
    return kExitOk;
}

}  // namespace smclab::cli
