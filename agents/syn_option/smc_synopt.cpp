// smc_synopt: runs a command while the SMC TCP option (kind 254, magic
// E2 D4 C3 D9) goes out on the SYN and SYN-ACK of the given ports, so
// that kernel SMC-R peers take its TCP connections for SMC ones:
//   smc_synopt [--or-run] PORT... -- COMMAND [ARG...]
// With --or-run (smcr_run --syn-option) a program that cannot be loaded or
// attached (no privileges, an old kernel) is said once on stderr and the
// command runs without the option: libsmcr sorts by first bytes as before.
// The program (syn_option_program.h, shared with smclab-agent) is
// detached when the command ends; what each connection's peer sent is
// kept in a map pinned while the command runs, its path in
// SMCR_SYN_OPTION_MAP, where libsmcr reads it (<smcr/syn_option.h>).
// Needs CAP_BPF and CAP_NET_ADMIN (root), and Linux 5.10.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "syn_option_program.h"

namespace {

int usage() {
    std::fprintf(stderr, "usage: smc_synopt [--or-run] PORT... -- COMMAND [ARG...]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<uint16_t> ports;
    int i = 1;
    const bool orRun = argc > 1 && std::strcmp(argv[1], "--or-run") == 0;
    if (orRun) ++i;
    for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
        char* end = nullptr;
        const long port = std::strtol(argv[i], &end, 10);
        if (*end != '\0' || port <= 0 || port > 65535) {
            std::fprintf(stderr, "smc_synopt: '%s' is not a TCP port\n", argv[i]);
            return usage();
        }
        ports.push_back(static_cast<uint16_t>(port));
    }
    if (ports.empty() || i + 1 >= argc) return usage();
    char** command = argv + i + 1;
    const auto cannot = [&](const std::string& why) {
        if (!orRun) {
            std::fprintf(stderr, "smc_synopt: %s\n", why.c_str());
            return 1;
        }
        std::fprintf(stderr,
                     "smc_synopt: the SMC TCP option is off (%s); %s runs with libsmcr's first-bytes detection\n",
                     why.c_str(), command[0]);
        ::execvp(command[0], command);
        std::fprintf(stderr, "smc_synopt: %s: %s\n", command[0], std::strerror(errno));
        return 127;
    };

    std::string why;
    std::unique_ptr<smclab::synopt::SynOptionProgram> program = smclab::synopt::SynOptionProgram::load({}, &why);
    if (!program) return cannot(why);
    for (uint16_t port : ports) {
        if (!program->addPort(port, &why)) return cannot(why);
    }
    // Where libsmcr finds what the peers sent; without it libsmcr sorts by first bytes.
    if (!program->recordWarning().empty()) std::fprintf(stderr, "smc_synopt: %s\n", program->recordWarning().c_str());
    if (!program->recordPath().empty()) ::setenv("SMCR_SYN_OPTION_MAP", program->recordPath().c_str(), 1);

    const pid_t child = ::fork();
    if (child == 0) {
        ::execvp(command[0], command);
        std::fprintf(stderr, "smc_synopt: %s: %s\n", command[0], std::strerror(errno));
        std::_Exit(127);
    }
    int status = 0;
    while (child > 0 && ::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    program.reset();  // the option stops with the command
    if (child < 0) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
