// This build has no libbpf or no clang for the BPF target: the option
// cannot go out, and every caller says so (agents/syn_option/CMakeLists.txt).
#include "syn_option_program.h"

namespace smclab::synopt {

struct SynOptionProgram::Impl {};

SynOptionProgram::SynOptionProgram(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

SynOptionProgram::~SynOptionProgram() = default;

std::unique_ptr<SynOptionProgram> SynOptionProgram::load(const std::string&, std::string* why) {
    *why = "this build has no BPF program (it needs clang and libbpf-dev)";
    return nullptr;
}

bool SynOptionProgram::addPort(uint16_t, std::string* why) {
    *why = "this build has no BPF program";
    return false;
}

void SynOptionProgram::removePort(uint16_t) {}

}  // namespace smclab::synopt
