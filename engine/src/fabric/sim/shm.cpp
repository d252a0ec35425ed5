#include "shm.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace smcr::fabric::sim {

ShmFile::ShmFile(ShmFile&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)),
      m_size(std::exchange(other.m_size, 0)),
      m_fd(std::exchange(other.m_fd, -1)) {}

ShmFile& ShmFile::operator=(ShmFile&& other) noexcept {
    if (this != &other) {
        reset();
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
        m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
}

ShmFile::~ShmFile() {
    reset();
}

void ShmFile::reset() {
    if (m_data != nullptr) munmap(m_data, m_size);
    if (m_fd >= 0) ::close(m_fd);
    m_data = nullptr;
    m_size = 0;
    m_fd = -1;
}

Result<ShmFile> ShmFile::create(const std::string& path, uint64_t bytes, bool keepFd) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) return fail(makeSystemError("create " + path, errno));
    // Group/other access regardless of umask: peers may run as other users.
    fchmod(fd, 0666);
    if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
        const int err = errno;
        ::close(fd);
        ::unlink(path.c_str());
        return fail(makeSystemError("ftruncate " + path, err));
    }
    // Populated at once, as an RNIC's registered memory is pinned and mapped
    // at registration: left to first touch, every new RMB cost a page fault
    // per 4 KiB in the writer and again in the reader during the first laps
    // of a stream (about a third of a second for 200 kv connections' first
    // 200k requests on the lab's VMs).
    void* data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (data == MAP_FAILED) {
        const int err = errno;
        ::close(fd);
        ::unlink(path.c_str());
        return fail(makeSystemError("mmap " + path, err));
    }
    ShmFile file;
    file.m_data = data;
    file.m_size = bytes;
    if (keepFd) {
        file.m_fd = fd;
    } else {
        ::close(fd);
    }
    return file;
}

Result<ShmFile> ShmFile::open(const std::string& path, bool keepFd) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return fail(makeSystemError("open " + path, errno));
    struct stat st {};
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        const int err = errno;
        ::close(fd);
        return fail(makeSystemError("stat " + path, err == 0 ? EINVAL : err));
    }
    const auto bytes = static_cast<uint64_t>(st.st_size);
    void* data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);  // as create()
    if (data == MAP_FAILED) {
        const int err = errno;
        ::close(fd);
        return fail(makeSystemError("mmap " + path, err));
    }
    ShmFile file;
    file.m_data = data;
    file.m_size = bytes;
    if (keepFd) {
        file.m_fd = fd;
    } else {
        ::close(fd);
    }
    return file;
}

std::string devicePath(const std::string& dir, uint32_t instance) {
    char name[32];
    std::snprintf(name, sizeof name, "/d%08x.dev", instance);
    return dir + name;
}

std::string objectPath(const std::string& dir, uint32_t instance, const char* kind, uint32_t id) {
    char name[48];
    std::snprintf(name, sizeof name, "/d%08x-%s%u", instance, kind, id);
    return dir + name;
}

Status ensureDir(const std::string& dir) {
    if (::mkdir(dir.c_str(), 01777) != 0 && errno != EEXIST) {
        return fail(makeSystemError("mkdir " + dir, errno));
    }
    chmod(dir.c_str(), 01777);  // best effort; fails harmlessly when another user made it
    return {};
}

bool deviceFileLocked(int fd) {
    if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
        flock(fd, LOCK_UN);
        return false;
    }
    return errno == EWOULDBLOCK;
}

void sweepStaleDevices(const std::string& dir) {
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return;
    std::vector<std::string> stalePrefixes;
    std::vector<std::string> names;
    while (dirent* entry = readdir(d)) {
        const std::string name = entry->d_name;
        names.push_back(name);
        if (name.size() != 13 || name[0] != 'd' || name.compare(9, 4, ".dev") != 0) continue;
        const std::string path = dir + "/" + name;
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        // The owner holds LOCK_EX for its lifetime; getting the lock means it died.
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            stalePrefixes.push_back(name.substr(0, 9));
            ::unlink(path.c_str());
            flock(fd, LOCK_UN);
        }
        ::close(fd);
    }
    closedir(d);
    for (const auto& prefix : stalePrefixes) {
        for (const auto& name : names) {
            if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
                name[prefix.size()] == '-') {
                ::unlink((dir + "/" + name).c_str());
            }
        }
    }
}

}  // namespace smcr::fabric::sim
