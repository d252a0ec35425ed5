#include "syn_option_program.h"

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <fstream>
#include <sstream>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace smclab::synopt {

// smc_syn_option.bpf.o, built into the library (embed_bpf.cmake).
extern const uint8_t kSynOptionObject[];
extern const size_t kSynOptionObjectSize;

namespace {

// Where a filesystem of `type` is mounted, else mounted by us on
// /run/smclab/<dir> (mode `mode`); empty, with the reason in *why, when
// that fails. `what` names it in the message.
std::string mountedOrOurs(const char* type, const char* dir, mode_t mode, const char* what, std::string* why) {
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
        *why = std::string("no ") + what + " mounted, and mounting one on " + ours + " failed: " + std::strerror(errno);
        return {};
    }
    return ours;
}

}  // namespace

struct SynOptionProgram::Impl {
    bpf_object* object = nullptr;
    bpf_link* link = nullptr;
    int cgroup = -1;
    int portsMap = -1;

    ~Impl() {
        if (link != nullptr) bpf_link__destroy(link);  // the option stops here
        if (object != nullptr) bpf_object__close(object);
        if (cgroup >= 0) ::close(cgroup);
    }
};

SynOptionProgram::SynOptionProgram(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

SynOptionProgram::~SynOptionProgram() {
    if (!m_recordPath.empty()) ::unlink(m_recordPath.c_str());
}

std::unique_ptr<SynOptionProgram> SynOptionProgram::load(const std::string& objectPath, std::string* why) {
    // One line of our own says why, not libbpf's several.
    libbpf_set_print([](libbpf_print_level, const char*, va_list) { return 0; });
    auto impl = std::make_unique<Impl>();
    const std::string path = objectPath.empty() ? std::string("the built-in smc_syn_option.bpf.o") : objectPath;
    if (objectPath.empty()) {
        bpf_object_open_opts options{};
        options.sz = sizeof(options);
        options.object_name = "smc_syn_option";
        impl->object = bpf_object__open_mem(kSynOptionObject, kSynOptionObjectSize, &options);
    } else {
        impl->object = bpf_object__open_file(path.c_str(), nullptr);
    }
    if (impl->object == nullptr) {
        *why = "cannot open " + path + ": " + std::strerror(errno);
        return nullptr;
    }
    if (bpf_object__load(impl->object) != 0) {
        *why = std::string("the kernel refused the sock_ops program: ") + std::strerror(errno) +
               "; CAP_BPF and CAP_NET_ADMIN (root) and Linux 5.10 needed";
        return nullptr;
    }
    impl->portsMap = bpf_object__find_map_fd_by_name(impl->object, "smc_ports");
    if (impl->portsMap < 0) {
        *why = path + " has no smc_ports map";
        return nullptr;
    }
    const std::string root = mountedOrOurs("cgroup2", "cgroup2", 0755, "cgroup v2", why);
    if (root.empty()) return nullptr;
    impl->cgroup = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    bpf_program* program = bpf_object__find_program_by_name(impl->object, "smc_syn_option");
    impl->link = impl->cgroup >= 0 && program != nullptr ? bpf_program__attach_cgroup(program, impl->cgroup) : nullptr;
    if (impl->link == nullptr) {
        *why = "cannot attach to " + root + ": " + std::strerror(errno);
        return nullptr;
    }
    std::unique_ptr<SynOptionProgram> out(new SynOptionProgram(std::move(impl)));
    // Where libsmcr finds what the peers sent; without it libsmcr sorts by first bytes.
    std::string fsWhy;
    const std::string fs = mountedOrOurs("bpf", "bpf", 0700, "bpf filesystem", &fsWhy);
    if (fs.empty()) {
        out->m_recordWarning = fsWhy;
        return out;
    }
    const std::string pinned = fs + "/smclab-smc_peer-" + std::to_string(::getpid());
    bpf_map* peers = bpf_object__find_map_by_name(out->m_impl->object, "smc_peer");
    if (peers == nullptr || bpf_map__pin(peers, pinned.c_str()) != 0) {
        out->m_recordWarning = "cannot pin the peers' map on " + pinned + ": " + std::strerror(errno);
        return out;
    }
    out->m_recordPath = pinned;
    return out;
}

bool SynOptionProgram::addPort(uint16_t port, std::string* why) {
    const uint8_t on = 1;
    if (bpf_map_update_elem(m_impl->portsMap, &port, &on, BPF_ANY) != 0) {
        *why = "port " + std::to_string(port) + ": " + std::strerror(errno);
        return false;
    }
    return true;
}

void SynOptionProgram::removePort(uint16_t port) {
    (void)bpf_map_delete_elem(m_impl->portsMap, &port);
}

}  // namespace smclab::synopt
