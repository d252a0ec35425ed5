// ksmc_run [-d] [-r SIZE] [-t SIZE] PROGRAM [ARGS...]: PROGRAM over the
// kernel's SMC-R, the lab's smc_run (smc-tools is not packaged for Debian
// 12): PROGRAM with libsmclab-ksmc-preload.so preloaded. Options as
// smc_run's: -d debug output, -r/-t the sockets' receive/send buffer size.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

namespace {

const char kUsage[] =
    "usage: ksmc_run [-d] [-r SIZE] [-t SIZE] PROGRAM [ARGS...]\n"
    "Runs PROGRAM with its TCP sockets made AF_SMC sockets: the kernel's SMC-R, with the\n"
    "kernel's own fallback to TCP (smc-tools' smc_run).\n"
    "  -d       say on stderr what each socket became (SMC_DEBUG=1)\n"
    "  -r SIZE  receive buffer size of the sockets (SMC_RCVBUF; K and M suffixes)\n"
    "  -t SIZE  send buffer size of the sockets (SMC_SNDBUF)\n";

std::string selfDir() {
    char buf[PATH_MAX] = {};
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return ".";
    const std::string path(buf, static_cast<size_t>(n));
    return path.substr(0, path.rfind('/'));
}

// The library beside this program: build/bin/../lib, or the package's lib/smclab.
std::string findLibrary() {
    if (const char* env = std::getenv("KSMC_PRELOAD_LIB"); env != nullptr && *env != '\0') return env;
    const std::string dir = selfDir();
    for (const std::string& candidate :
         {dir + "/../lib/libsmclab-ksmc-preload.so", dir + "/../lib/smclab/libsmclab-ksmc-preload.so"}) {
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return candidate;
    }
    return {};
}

bool validSize(const char* text) {
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    return n > 0 && end != text &&
           (*end == '\0' || ((*end == 'k' || *end == 'K' || *end == 'm' || *end == 'M') && end[1] == '\0'));
}

}  // namespace

int main(int argc, char** argv) {
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; ++i) {
        const std::string opt = argv[i];
        if (opt == "-h" || opt == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (opt == "-d") {
            ::setenv("SMC_DEBUG", "1", 1);
        } else if (opt == "-r" || opt == "-t") {
            if (i + 1 >= argc || !validSize(argv[i + 1])) {
                std::fprintf(stderr, "ksmc_run: %s needs a size (bytes, or with K or M)\n%s", opt.c_str(), kUsage);
                return 2;
            }
            ::setenv(opt == "-r" ? "SMC_RCVBUF" : "SMC_SNDBUF", argv[++i], 1);
        } else if (opt == "--") {
            ++i;
            break;
        } else {
            std::fprintf(stderr, "ksmc_run: unknown option %s\n%s", opt.c_str(), kUsage);
            return 2;
        }
    }
    if (i >= argc) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    const std::string library = findLibrary();
    if (library.empty()) {
        std::fprintf(stderr, "ksmc_run: libsmclab-ksmc-preload.so not found beside %s (../lib)\n", selfDir().c_str());
        return 127;
    }
    const char* previous = std::getenv("LD_PRELOAD");
    const std::string preload =
        previous != nullptr && *previous != '\0' ? std::string(previous) + ":" + library : library;
    ::setenv("LD_PRELOAD", preload.c_str(), 1);
    ::execvp(argv[i], argv + i);
    std::fprintf(stderr, "ksmc_run: %s: %s\n", argv[i], std::strerror(errno));
    return errno == ENOENT ? 127 : 126;
}
