// One stream/listener interface for every transport the lab measures:
// `tcp` (kernel TCP), `ksmc` (kernel AF_SMC) and `smcr` (libsmcr, user space).
//
// Workloads never touch sockets directly: they connect, listen, read, write
// and wait for readiness through these classes, so the same workload code
// runs over kernel sockets and over libsmcr, whose sockets are NOT kernel
// file descriptors. That is why readiness goes through a transport-made
// Poller (epoll for the kernel transports, libsmcr's own poller for smcr)
// instead of epoll_ctl on stream fds.
//
// Error model (smcr::Result at every call):
//  - read() returning 0 bytes means end of stream (the peer shut down writing);
//  - Errc::wouldBlock: non-blocking stream, nothing to do now;
//  - Errc::timedOut: blocking stream whose I/O timeout (setIoTimeoutMs) expired;
//  - Errc::connectionReset / closed / systemError: the stream is unusable.
//
// Threading: a Transport is shared by every thread of a run and by the
// controlling thread (applySetting, counters), so its methods are
// thread-safe. A Stream, Listener or Poller belongs to one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>
#include <sys/uio.h>

#include <smcr/result.h>

namespace smclab::transports {

using smcr::Result;
using smcr::Status;

// Readiness interest and readiness results, a bit set.
enum class Interest : uint32_t {
    none = 0,
    read = 1u << 0,    // readable, or a listener has a connection to accept
    write = 1u << 1,   // writable
    hangup = 1u << 2,  // (result only) peer closed or the stream failed; a read tells which
};
constexpr Interest operator|(Interest a, Interest b) {
    return static_cast<Interest>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr Interest operator&(Interest a, Interest b) {
    return static_cast<Interest>(static_cast<uint32_t>(a) & static_cast<uint32_t>(b));
}
constexpr bool any(Interest a) {
    return a != Interest::none;
}

// Named counters (cumulative since the transport or stream was made), e.g.
// tcp: "tcp.retransmits"; smcr: the engine's smc_stats names.
struct Counter {
    std::string name;
    uint64_t value = 0;
};
using Counters = std::vector<Counter>;

// Whether a transport can run on this host, and if not, why.
struct Availability {
    bool available = false;
    std::string reason;  // empty when available; otherwise a sentence for the user
};

// Transport-wide options fixed when the transport is made (per run), as
// strings so they travel unchanged from the CLI and the control protocol.
// smcr: e.g. "fabric" = "sim"|"verbs", "device", link-model knobs.
using TransportOptions = std::map<std::string, std::string>;

struct ConnectOptions {
    int timeoutMs = 5000;        // connection establishment limit
    bool noDelay = false;        // TCP_NODELAY (qperf never sets it; default off)
    int sendBufferBytes = 0;     // SO_SNDBUF, 0 = system default
    int receiveBufferBytes = 0;  // SO_RCVBUF, 0 = system default
};

// Anything a Poller can watch: a Stream or a Listener of the same transport.
class Pollable {
public:
    virtual ~Pollable() = default;
    // The kernel fd for kernel transports; -1 for user-space transports (smcr).
    // Only the transport's own Poller may interpret it.
    virtual int nativeFd() const = 0;
};

class Stream : public Pollable {
public:
    // Blocking by default. Non-blocking streams return Errc::wouldBlock.
    virtual Status setNonBlocking(bool enabled) = 0;
    // Blocking streams: read/write give up with Errc::timedOut after this long
    // (0 = wait forever). Lets blocking loops poll a stop flag without an
    // extra system call per message.
    virtual Status setIoTimeoutMs(int timeoutMs) = 0;

    // Returns bytes read (0 = end of stream). May return fewer than len.
    virtual Result<size_t> read(void* buffer, size_t len) = 0;
    // Returns bytes written; may be fewer than len (partial write).
    virtual Result<size_t> write(const void* buffer, size_t len) = 0;
    virtual Result<size_t> writev(const iovec* iov, int count) = 0;
    // Sends len bytes of fileFd starting at offset (kernel sendfile for tcp
    // and ksmc; a read-and-write copy for user-space transports). May be partial.
    virtual Result<size_t> sendfile(int fileFd, off_t offset, size_t len) = 0;

    // TCP_CORK semantics: while corked, partial segments wait for more data;
    // uncorking pushes them (nginx tcp_nopush). smcr maps it to SMC corking.
    virtual Status setCork(bool enabled) = 0;
    virtual Status setNoDelay(bool enabled) = 0;

    virtual Status shutdownWrite() = 0;
    virtual void close() = 0;  // idempotent; the destructor closes too

    // Blocks until the stream is ready for `interest` or timeoutMs passes
    // (-1 = forever). Returns the ready set (none on timeout).
    virtual Result<Interest> waitReady(Interest interest, int timeoutMs) = 0;

    virtual std::string peerAddress() const = 0;  // "host:port"
    virtual Counters counters() const { return {}; }
};

class Listener : public Pollable {
public:
    virtual Status setNonBlocking(bool enabled) = 0;
    // Blocking: waits for a connection. Non-blocking: Errc::wouldBlock when none.
    virtual Result<std::unique_ptr<Stream>> accept() = 0;
    virtual uint16_t localPort() const = 0;  // the bound port (useful after port 0)
    virtual void close() = 0;
};

// Level-triggered readiness for many streams and listeners of one transport,
// made by Transport::createPoller (epoll for tcp/ksmc, libsmcr's poller for
// smcr). A target must be removed before it is destroyed.
struct PollEvent {
    void* userData = nullptr;  // the pointer given to add()/modify()
    Interest ready = Interest::none;
};

class Poller {
public:
    virtual ~Poller() = default;
    virtual Status add(Pollable& target, Interest interest, void* userData) = 0;
    virtual Status modify(Pollable& target, Interest interest, void* userData) = 0;
    virtual Status remove(Pollable& target) = 0;
    // Waits up to timeoutMs (-1 = forever, 0 = poll) and fills `events`.
    // Returns how many were filled; 0 on timeout or after wakeup().
    virtual Result<size_t> wait(std::span<PollEvent> events, int timeoutMs) = 0;
    // Thread-safe: makes a blocked wait() return early (used to stop a run).
    virtual void wakeup() = 0;
};

// A live setting as a transport lists it (for capabilities and snapshots).
enum class SettingScope {
    invalid = 0,
    immediate,       // takes effect at once, also on running connections
    newConnections,  // applies to connections made afterwards
    newLinkGroups,   // smcr: applies to link groups made afterwards (e.g. credits)
};

struct SettingInfo {
    std::string name;   // e.g. "autocorking_size" (the kernel sysctl name)
    std::string value;  // current value, as text
    SettingScope scope = SettingScope::invalid;
    std::string help;
};

class Transport {
public:
    virtual ~Transport() = default;

    virtual std::string name() const = 0;

    virtual Result<std::unique_ptr<Stream>> connect(const std::string& host, uint16_t port,
                                                    const ConnectOptions& options) = 0;
    // addr "" or "0.0.0.0" = any IPv4; port 0 = ephemeral (see localPort()).
    virtual Result<std::unique_ptr<Listener>> listen(const std::string& addr, uint16_t port, int backlog) = 0;
    virtual Result<std::unique_ptr<Poller>> createPoller() = 0;

    // Live settings (thread-safe; called by the agent while a run is going).
    // tcp: the host's net.ipv4 TCP sysctls it knows; ksmc: /proc/sys/net/smc/*;
    // smcr: libsmcr's Settings. An unknown name or bad value is an error
    // naming it; a setting the host does not let us change is systemError.
    virtual std::vector<SettingInfo> settings() const = 0;
    virtual Status applySetting(const std::string& name, const std::string& value) = 0;

    // Transport-wide counters (thread-safe).
    virtual Counters counters() const { return {}; }
};

// ---- registry: transports by name -------------------------------------------

struct TransportEntry {
    const char* name;
    const char* summary;
    Availability (*probe)();
    Result<std::unique_ptr<Transport>> (*create)(const TransportOptions& options);
};

std::span<const TransportEntry> transportRegistry();
const TransportEntry* findTransport(std::string_view name);
// Probes, then creates. Errors: notFound for an unknown name (listing the
// known ones), notSupported with the probe's reason when unavailable.
Result<std::shared_ptr<Transport>> createTransport(std::string_view name, const TransportOptions& options = {});

}  // namespace smclab::transports
