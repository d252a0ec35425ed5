// smcr_run [options] PROGRAM [ARGS...]: PROGRAM with libsmcr-preload.so
// preloaded (the lab's smc_run). Options become SMCR_* variables, which the
// library reads once when it loads (config.h).
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "run_options.h"

namespace {

bool isFile(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string selfDir() {
    char buf[PATH_MAX] = {};
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return ".";
    std::string path(buf, static_cast<size_t>(n));
    return path.substr(0, path.rfind('/'));
}

// The library beside this program: build/bin/../lib, or the package's
// <prefix>/bin/../lib/smclab.
std::string findLibrary() {
    if (const char* env = std::getenv("SMCR_PRELOAD_LIB"); env != nullptr && *env != '\0') return env;
    const std::string dir = selfDir();
    for (const std::string& candidate :
         {dir + "/../lib/libsmcr-preload.so", dir + "/../lib/smclab/libsmcr-preload.so"}) {
        if (isFile(candidate)) return candidate;
    }
    return {};
}

// PROGRAM as execvp would find it; an error text when it cannot run.
std::string checkProgram(const std::string& program, std::string& error) {
    auto check = [&](const std::string& path) {
        if (!isFile(path)) return false;
        if (::access(path.c_str(), X_OK) != 0) {
            error = program + ": not executable";
            return false;
        }
        return true;
    };
    if (program.find('/') != std::string::npos) {
        if (check(program)) return program;
        if (error.empty()) error = program + ": no such file";
        return {};
    }
    const char* path = std::getenv("PATH");
    std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
    size_t pos = 0;
    while (pos <= dirs.size()) {
        size_t end = dirs.find(':', pos);
        if (end == std::string::npos) end = dirs.size();
        const std::string dir = dirs.substr(pos, end - pos);
        if (!dir.empty() && check(dir + "/" + program)) return dir + "/" + program;
        pos = end + 1;
    }
    if (error.empty()) error = program + ": command not found";
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    auto options = smcr::preload::parseRunOptions(args);
    if (!options) {
        std::cerr << "smcr_run: " << options.error().message << "\n" << smcr::preload::runUsage();
        return 2;
    }
    if (options.value().help) {
        std::cout << smcr::preload::runUsage();
        return 0;
    }
    if (options.value().listSettings) {
        std::cout << smcr::preload::settingsListing();
        return 0;
    }
    const std::string library = findLibrary();
    if (library.empty()) {
        std::cerr << "smcr_run: libsmcr-preload.so not found beside " << selfDir() << " (set SMCR_PRELOAD_LIB)\n";
        return 2;
    }
    std::string error;
    const std::string program = checkProgram(options.value().command[0], error);
    if (program.empty()) {
        std::cerr << "smcr_run: " << error << "\n";
        return error.find("not executable") != std::string::npos ? 126 : 127;
    }
    struct stat programStat {};
    if (::stat(program.c_str(), &programStat) == 0 && (programStat.st_mode & (S_ISUID | S_ISGID)) != 0 &&
        ::geteuid() != programStat.st_uid) {
        std::cerr << "smcr_run: warning: " << program
                  << " is setuid/setgid: the loader ignores LD_PRELOAD, its connections stay TCP\n";
    }
    if (!options.value().statsDir.empty()) {
        // Made open to every user: servers drop privileges in their workers
        // (nginx's run as nobody) and each process writes its own file.
        if (::mkdir(options.value().statsDir.c_str(), 0777) == 0) ::chmod(options.value().statsDir.c_str(), 01777);
        char real[PATH_MAX] = {};
        if (::realpath(options.value().statsDir.c_str(), real) == nullptr) {
            std::cerr << "smcr_run: --stats " << options.value().statsDir << ": " << std::strerror(errno) << "\n";
            return 2;
        }
        options.value().statsDir = real;
    }
    for (const auto& [name, value] : smcr::preload::runEnvironment(options.value())) {
        ::setenv(name.c_str(), value.c_str(), 1);
    }
    std::string preload = library;
    if (const char* old = std::getenv("LD_PRELOAD"); old != nullptr && *old != '\0') preload += std::string(":") + old;
    ::setenv("LD_PRELOAD", preload.c_str(), 1);

    std::vector<std::string> synopt;
    if (!options.value().synOptionPorts.empty()) {
        // smc_synopt loads the BPF program and runs the program under it;
        // --or-run: without the privileges it says so once and runs it anyway.
        const std::string tool = selfDir() + "/smc_synopt";
        if (::access(tool.c_str(), X_OK) == 0) {
            synopt = {tool, "--or-run"};
            synopt.insert(synopt.end(), options.value().synOptionPorts.begin(), options.value().synOptionPorts.end());
            synopt.emplace_back("--");
        } else {
            std::cerr << "smcr_run: the SMC TCP option is off (smc_synopt is not built: it needs clang and "
                         "libbpf-dev); "
                      << program << " runs with libsmcr's first-bytes detection\n";
        }
    }
    std::vector<char*> argvOut;
    for (std::string& a : synopt) argvOut.push_back(a.data());
    if (!synopt.empty()) options.value().command[0] = program;
    for (std::string& a : options.value().command) argvOut.push_back(a.data());
    argvOut.push_back(nullptr);
    ::execv(synopt.empty() ? program.c_str() : synopt[0].c_str(), argvOut.data());
    std::cerr << "smcr_run: " << program << ": " << std::strerror(errno) << "\n";
    return 126;
}
