// The SMC TCP option (kind 254, magic E2 D4 C3 D9) on the SYN and SYN-ACK
// of chosen ports: smc_syn_option.bpf.o (built into this library,
// embed_bpf.cmake) loaded with libbpf, attached to
// the root of the cgroup v2 hierarchy (mounting one under /run/smclab when
// none is mounted), its record of what each connection's peer sent pinned
// on a bpf filesystem for libsmcr to read (SMCR_SYN_OPTION_MAP,
// <smcr/syn_option.h>). One piece for both users: smc_synopt (and through
// it smcr_run --syn-option) around a command, smclab-agent around its
// libsmcr runs, adding and removing ports while it runs.
// Needs CAP_BPF and CAP_NET_ADMIN (root) and Linux 5.10; where the build
// had no libbpf, load() says so.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace smclab::synopt {

class SynOptionProgram {
public:
    SynOptionProgram(const SynOptionProgram&) = delete;
    SynOptionProgram& operator=(const SynOptionProgram&) = delete;
    ~SynOptionProgram();  // detaches the program and unpins the record

    // Loads and attaches the program (no port chosen yet) and pins the
    // peers' record; null with *why (one sentence) when it cannot.
    // `objectPath` empty: the object built into the library.
    static std::unique_ptr<SynOptionProgram> load(const std::string& objectPath, std::string* why);

    // The option goes on connects to `port` and on listeners bound to it
    // (those that listen after the call). False with *why on failure.
    bool addPort(uint16_t port, std::string* why);
    void removePort(uint16_t port);

    // Where the peers' record is pinned (the value for
    // SMCR_SYN_OPTION_MAP); empty when it could not be pinned.
    const std::string& recordPath() const { return m_recordPath; }
    // Why the record could not be pinned (the option still goes out).
    const std::string& recordWarning() const { return m_recordWarning; }

private:
    struct Impl;
    explicit SynOptionProgram(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
    std::string m_recordPath;
    std::string m_recordWarning;
};

}  // namespace smclab::synopt
