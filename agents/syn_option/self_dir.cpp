#include <vector>

#include <unistd.h>

#include "syn_option_program.h"

namespace smclab::synopt {

std::string selfDir() {
    std::vector<char> path(4096);
    const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size() - 1);
    if (n <= 0) return ".";
    std::string exe(path.data(), static_cast<size_t>(n));
    return exe.substr(0, exe.rfind('/'));
}

}  // namespace smclab::synopt
