// Shared files of the sim: creation, mapping and names (see layout.h).
#pragma once

#include <cstdint>
#include <string>

#include <smcr/result.h>

namespace smcr::fabric::sim {

// A mapped file under the sim directory; move-only, unmapped on destruction.
class ShmFile {
public:
    ShmFile() = default;
    ShmFile(ShmFile&& other) noexcept;
    ShmFile& operator=(ShmFile&& other) noexcept;
    ShmFile(const ShmFile&) = delete;
    ShmFile& operator=(const ShmFile&) = delete;
    ~ShmFile();

    // Creates (O_EXCL) and maps `bytes` zero bytes. keepFd keeps the
    // descriptor open (the device file holds its liveness lock on it).
    static Result<ShmFile> create(const std::string& path, uint64_t bytes, bool keepFd = false);
    static Result<ShmFile> open(const std::string& path, bool keepFd = false);

    void* data() const { return m_data; }
    uint64_t size() const { return m_size; }
    int fd() const { return m_fd; }
    bool valid() const { return m_data != nullptr; }

private:
    void reset();
    void* m_data = nullptr;
    uint64_t m_size = 0;
    int m_fd = -1;
};

std::string devicePath(const std::string& dir, uint32_t instance);
// kind: "qp", "cq", "mr", "ch".
std::string objectPath(const std::string& dir, uint32_t instance, const char* kind, uint32_t id);

// Creates the directory if needed (mode 1777 so every user of the host can
// share it, like /dev/shm itself).
Status ensureDir(const std::string& dir);
// Removes the files of device instances whose owner process is gone.
void sweepStaleDevices(const std::string& dir);
// True when a process holds the device's liveness lock.
bool deviceFileLocked(int fd);

}  // namespace smcr::fabric::sim
