// smc_synopt: runs a command while the SMC TCP option (kind 254, magic
// E2 D4 C3 D9) goes out on the SYN and SYN-ACK of the given ports, so
// that kernel SMC-R peers take its TCP connections for SMC ones:
//   smc_synopt [--or-run] PORT... -- COMMAND [ARG...]
// With --or-run (smcr_run --syn-option) a program that cannot be loaded or
// attached (no privileges, an old kernel) is said once on stderr and the
// command runs without the option: libsmcr sorts by first bytes as before.
// It loads smc_syn_option.bpf.o (beside this program) with libbpf,
// attaches it to the root of the cgroup v2 hierarchy (mounting one under
// /run/smclab when none is mounted) and detaches it when the command ends.
// What each connection's peer sent (the option or not) is kept in a map
// pinned on a bpf filesystem while the command runs, its path in
// SMCR_SYN_OPTION_MAP, where libsmcr reads it (syn_option.h).
// Needs CAP_BPF and CAP_NET_ADMIN (root), and Linux 5.10.
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

int usage() {
    std::fprintf(stderr, "usage: smc_synopt [--or-run] PORT... -- COMMAND [ARG...]\n");
    return 2;
}

std::string selfDir() {
    std::vector<char> path(4096);
    const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size() - 1);
    if (n <= 0) return ".";
    std::string exe(path.data(), static_cast<size_t>(n));
    return exe.substr(0, exe.rfind('/'));
}

// Where a filesystem of `type` is mounted, else mounted by us on
// /run/smclab/<dir> (mode `mode`); empty, with the reason on stderr, when
// that fails. `what` names it in the message.
std::string mountedOrOurs(const char* type, const char* dir, mode_t mode, const char* what) {
    std::ifstream mounts("/proc/self/mounts");
    std::string line;
    while (std::getline(mounts, line)) {
        std::istringstream fields(line);
        std::string source;
        std::string target;
        std::string fsType;
        fields >> source >> target >> fsType;
        if (fsType == type) return target;
    }
    const std::string ours = std::string("/run/smclab/") + dir;
    ::mkdir("/run/smclab", 0755);
    ::mkdir(ours.c_str(), mode);
    if (::mount(type, ours.c_str(), type, 0, nullptr) != 0) {
        std::fprintf(stderr, "smc_synopt: no %s mounted, and mounting one on %s failed: %s\n", what, ours.c_str(),
                     std::strerror(errno));
        return {};
    }
    return ours;
}

// Where the cgroup v2 hierarchy is mounted, mounting it when it is not.
std::string cgroup2Root() {
    return mountedOrOurs("cgroup2", "cgroup2", 0755, "cgroup v2");
}

// A bpf filesystem to pin on: the mounted one, else one under /run/smclab.
std::string bpffsRoot() {
    return mountedOrOurs("bpf", "bpf", 0700, "bpf filesystem");
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
    // One line of our own says why, not libbpf's several.
    libbpf_set_print([](libbpf_print_level, const char*, va_list) { return 0; });
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

    const std::string objectPath = selfDir() + "/smc_syn_option.bpf.o";
    bpf_object* object = bpf_object__open_file(objectPath.c_str(), nullptr);
    if (object == nullptr) {
        return cannot("cannot open " + objectPath + ": " + std::strerror(errno));
    }
    if (bpf_object__load(object) != 0) {
        return cannot(std::string("the kernel refused the sock_ops program: ") + std::strerror(errno) +
                      "; CAP_BPF and CAP_NET_ADMIN (root) and Linux 5.10 needed");
    }
    const int portsMap = bpf_object__find_map_fd_by_name(object, "smc_ports");
    for (uint16_t port : ports) {
        const uint8_t on = 1;
        if (bpf_map_update_elem(portsMap, &port, &on, BPF_ANY) != 0) {
            return cannot("port " + std::to_string(port) + ": " + std::strerror(errno));
        }
    }
    const std::string root = cgroup2Root();
    if (root.empty()) return cannot("no cgroup v2 hierarchy");
    const int cgroup = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    bpf_program* program = bpf_object__find_program_by_name(object, "smc_syn_option");
    bpf_link* link = cgroup >= 0 && program != nullptr ? bpf_program__attach_cgroup(program, cgroup) : nullptr;
    if (link == nullptr) {
        return cannot("cannot attach to " + root + ": " + std::strerror(errno));
    }

    // Where libsmcr finds what the peers sent; without it libsmcr sorts by first bytes.
    std::string pinned;
    if (const std::string fs = bpffsRoot(); !fs.empty()) {
        pinned = fs + "/smclab-smc_peer-" + std::to_string(::getpid());
        bpf_map* peers = bpf_object__find_map_by_name(object, "smc_peer");
        if (peers == nullptr || bpf_map__pin(peers, pinned.c_str()) != 0) {
            std::fprintf(stderr, "smc_synopt: cannot pin the peers' map on %s: %s\n", pinned.c_str(),
                         std::strerror(errno));
            pinned.clear();
        } else {
            ::setenv("SMCR_SYN_OPTION_MAP", pinned.c_str(), 1);
        }
    }

    const pid_t child = ::fork();
    if (child == 0) {
        ::execvp(command[0], command);
        std::fprintf(stderr, "smc_synopt: %s: %s\n", command[0], std::strerror(errno));
        std::_Exit(127);
    }
    int status = 0;
    while (child > 0 && ::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (!pinned.empty()) ::unlink(pinned.c_str());
    bpf_link__destroy(link);  // the option stops with the command
    bpf_object__close(object);
    ::close(cgroup);
    if (child < 0) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
