#include "http_server.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event_server.h"
#include "http_parse.h"

namespace smclab::workloads {

namespace {

using transports::Interest;

constexpr size_t kReadChunk = 16 * 1024;
constexpr size_t kCopyChunk = 32 * 1024;  // nginx's default output_buffers: 2 32k
constexpr uint64_t kMaxRequestBody = 1 << 20;

struct Site {
    std::string root;  // empty: only the generated page
    // nginx "sendfile on|off": on sends bodies with sendfile (zero copy for
    // kernel transports); off reads each chunk into a user buffer and sends
    // it with write(), the copy path the sendfile-cork comparison measures.
    bool sendfile = true;
    int generatedFd = -1;  // memfd holding the generated page
    size_t generatedSize = 0;
    ~Site() {
        if (generatedFd >= 0) ::close(generatedFd);
    }
};

const char* contentType(const std::string& path) {
    struct Type {
        const char* ext;
        const char* type;
    };
    static const Type kTypes[] = {{".html", "text/html"},
                                  {".htm", "text/html"},
                                  {".txt", "text/plain"},
                                  {".css", "text/css"},
                                  {".js", "application/javascript"},
                                  {".json", "application/json"},
                                  {".png", "image/png"},
                                  {".jpg", "image/jpeg"}};
    for (const Type& t : kTypes) {
        const size_t n = std::strlen(t.ext);
        if (path.size() >= n && path.compare(path.size() - n, n, t.ext) == 0) return t.type;
    }
    return "application/octet-stream";
}

// RFC 9110 IMF-fixdate, recomputed once per second per thread.
const std::string& httpDate() {
    thread_local time_t cachedSecond = 0;
    thread_local std::string cached;
    const time_t now = ::time(nullptr);
    if (now != cachedSecond) {
        cachedSecond = now;
        tm utc{};
        ::gmtime_r(&now, &utc);
        char buf[64];
        std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &utc);
        cached = buf;
    }
    return cached;
}

const char* reasonPhrase(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 400:
            return "Bad Request";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 413:
            return "Content Too Large";
        case 431:
            return "Request Header Fields Too Large";
        case 500:
            return "Internal Server Error";
        case 501:
            return "Not Implemented";
        case 505:
            return "HTTP Version Not Supported";
        default:
            return "Error";
    }
}

class HttpConnection final : public Connection {
public:
    HttpConnection(transports::Stream& stream, const Site& site, WorkerStats& stats)
        : m_stream(stream), m_site(site), m_stats(stats) {
        m_in.resize(kReadChunk);
    }
    ~HttpConnection() override { releaseFile(); }

    Interest onReady(Interest ready) override {
        if (m_sending) {
            const Interest flushed = flush();
            if (flushed != Interest::read) return flushed;
        }
        if (any(ready & Interest::read) && !m_peerClosed) {
            if (m_inLen == m_in.size()) m_in.resize(m_in.size() * 2);
            auto n = m_stream.read(m_in.data() + m_inLen, m_in.size() - m_inLen);
            if (!n) {
                if (n.error().code != smcr::Errc::wouldBlock) return Interest::none;
            } else if (*n == 0) {
                m_peerClosed = true;
            } else {
                m_inLen += *n;
                m_stats.bytesIn.fetch_add(*n, std::memory_order_relaxed);
            }
        }
        return processRequests();
    }

private:
    Interest processRequests() {
        while (!m_sending) {
            const std::string_view pending(m_in.data() + m_consumed, m_inLen - m_consumed);
            const http::RequestParse parse = http::parseRequest(pending);
            if (parse.state == http::ParseState::incomplete) break;
            if (parse.state == http::ParseState::error) {
                m_closeAfter = true;
                startError(parse.errorStatus, false);
                m_consumed = m_inLen;
            } else {
                const http::Request& req = parse.request;
                if (req.contentLength > kMaxRequestBody) {
                    m_closeAfter = true;
                    startError(413, false);
                    m_consumed = m_inLen;
                } else if (pending.size() < req.headBytes + req.contentLength) {
                    break;  // wait for the (ignored) body
                } else {
                    m_consumed += req.headBytes + req.contentLength;
                    m_closeAfter = !req.keepAlive;
                    respond(req);
                }
            }
            const Interest flushed = flush();
            if (flushed != Interest::read) return flushed;
        }
        // Keep the unparsed tail at the front of the buffer.
        if (m_consumed > 0) {
            std::memmove(m_in.data(), m_in.data() + m_consumed, m_inLen - m_consumed);
            m_inLen -= m_consumed;
            m_consumed = 0;
        }
        if (m_peerClosed) return Interest::none;
        return Interest::read;
    }

    void respond(const http::Request& req) {
        const bool head = req.method == "HEAD";
        if (req.method != "GET" && !head) {
            startError(405, head);
            return;
        }
        auto rel = http::targetToRelativePath(req.target);
        if (!rel) {
            startError(403, head);
            return;
        }
        int fd = -1;
        size_t size = 0;
        bool owned = false;
        if (m_site.root.empty()) {
            if (*rel == std::string(kGeneratedPath + 1)) {
                fd = m_site.generatedFd;
                size = m_site.generatedSize;
            }
        } else {
            const std::string path = m_site.root + "/" + *rel;
            fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                startError(errno == EACCES ? 403 : 404, head);
                return;
            }
            struct stat st {};
            if (::fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                ::close(fd);
                startError(404, head);
                return;
            }
            size = static_cast<size_t>(st.st_size);
            owned = true;
        }
        if (fd < 0) {
            startError(404, head);
            return;
        }
        m_head = "HTTP/1.1 200 OK\r\nServer: smclab\r\nDate: " + httpDate() + "\r\nContent-Type: " + contentType(*rel) +
                 "\r\nContent-Length: " + std::to_string(size) +
                 (m_closeAfter ? "\r\nConnection: close\r\n\r\n" : "\r\nConnection: keep-alive\r\n\r\n");
        m_headSent = 0;
        m_body.clear();
        m_fileFd = fd;
        m_ownsFile = owned;
        m_fileOffset = 0;
        m_fileLeft = head ? 0 : size;
        startSending();
    }

    void startError(int status, bool headOnly) {
        m_body = std::to_string(status) + " " + reasonPhrase(status) + "\n";
        m_head = "HTTP/1.1 " + std::to_string(status) + " " + reasonPhrase(status) +
                 "\r\nServer: smclab\r\nDate: " + httpDate() +
                 "\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(m_body.size()) +
                 (m_closeAfter ? "\r\nConnection: close\r\n\r\n" : "\r\nConnection: keep-alive\r\n\r\n");
        if (headOnly) m_body.clear();
        m_headSent = 0;
        m_fileLeft = 0;
        startSending();
    }

    void startSending() {
        m_sending = true;
        // nginx tcp_nopush: header and the first body bytes share full segments.
        if (m_stream.setCork(true)) m_corked = true;
    }

    // Returns read when the response is out, write when blocked, none on error.
    Interest flush() {
        const size_t headAndBody = m_head.size() + m_body.size();
        while (m_headSent < headAndBody) {
            iovec iov[2];
            int count = 0;
            if (m_headSent < m_head.size()) {
                iov[count++] = {m_head.data() + m_headSent, m_head.size() - m_headSent};
                if (!m_body.empty()) iov[count++] = {m_body.data(), m_body.size()};
            } else {
                const size_t bodyOff = m_headSent - m_head.size();
                iov[count++] = {m_body.data() + bodyOff, m_body.size() - bodyOff};
            }
            auto n = m_stream.writev(iov, count);
            if (!n) return n.error().code == smcr::Errc::wouldBlock ? Interest::write : failed();
            m_headSent += *n;
            m_stats.bytesOut.fetch_add(*n, std::memory_order_relaxed);
        }
        const Interest body = m_site.sendfile ? sendBodyByFile() : sendBodyByCopy();
        if (body != Interest::read) return body;
        if (m_corked) {
            (void)m_stream.setCork(false);
            m_corked = false;
        }
        releaseFile();
        m_sending = false;
        m_stats.ops.fetch_add(1, std::memory_order_relaxed);
        if (m_closeAfter) {
            (void)m_stream.shutdownWrite();
            return Interest::none;
        }
        return Interest::read;
    }

    // sendfile on: the transport moves file bytes itself.
    Interest sendBodyByFile() {
        while (m_fileLeft > 0) {
            auto n = m_stream.sendfile(m_fileFd, m_fileOffset, m_fileLeft);
            if (!n) return n.error().code == smcr::Errc::wouldBlock ? Interest::write : failed();
            if (*n == 0) return failed();  // the file shrank under us
            m_fileOffset += static_cast<off_t>(*n);
            m_fileLeft -= *n;
            m_stats.bytesOut.fetch_add(*n, std::memory_order_relaxed);
        }
        return Interest::read;
    }

    // sendfile off: pread a chunk into the connection's buffer, write() it,
    // keep what a partial write left for the next round.
    Interest sendBodyByCopy() {
        while (m_fileLeft > 0) {
            if (m_copySent == m_copyLen) {
                if (m_copy.empty()) m_copy.resize(kCopyChunk);
                const size_t want = std::min(m_copy.size(), m_fileLeft);
                const ssize_t got = ::pread(m_fileFd, m_copy.data(), want, m_fileOffset);
                if (got < 0 && errno == EINTR) continue;
                if (got <= 0) return failed();  // read error, or the file shrank under us
                m_copyLen = static_cast<size_t>(got);
                m_copySent = 0;
                m_fileOffset += got;
            }
            auto n = m_stream.write(m_copy.data() + m_copySent, m_copyLen - m_copySent);
            if (!n) return n.error().code == smcr::Errc::wouldBlock ? Interest::write : failed();
            m_copySent += *n;
            m_fileLeft -= *n;
            m_stats.bytesOut.fetch_add(*n, std::memory_order_relaxed);
        }
        m_copyLen = 0;
        m_copySent = 0;
        return Interest::read;
    }

    Interest failed() {
        m_stats.errors.fetch_add(1, std::memory_order_relaxed);
        return Interest::none;
    }

    void releaseFile() {
        if (m_ownsFile && m_fileFd >= 0) ::close(m_fileFd);
        m_fileFd = -1;
        m_ownsFile = false;
    }

    transports::Stream& m_stream;
    const Site& m_site;
    WorkerStats& m_stats;
    std::vector<char> m_in;
    size_t m_inLen = 0;
    size_t m_consumed = 0;
    bool m_peerClosed = false;
    bool m_sending = false;
    bool m_corked = false;
    bool m_closeAfter = false;
    std::string m_head;
    std::string m_body;  // error responses only; files go by sendfile or the copy buffer
    size_t m_headSent = 0;
    int m_fileFd = -1;
    bool m_ownsFile = false;
    off_t m_fileOffset = 0;
    size_t m_fileLeft = 0;
    std::vector<char> m_copy;  // sendfile off: the body chunk in flight
    size_t m_copyLen = 0;
    size_t m_copySent = 0;
};

}  // namespace

std::string generatedPage(size_t bytes) {
    const std::string open = "<!DOCTYPE html>\n<html><head><title>smclab</title></head><body><pre>\n";
    const std::string close = "</pre></body></html>\n";
    std::string page;
    if (bytes < open.size() + close.size()) {
        page.assign(bytes, 'x');
        return page;
    }
    page = open;
    const size_t bodyEnd = bytes - close.size();
    for (size_t line = 0; page.size() < bodyEnd; ++line) {
        std::string text = "smclab static page, line " + std::to_string(line) + ": abcdefghijklmnopqrstuvwxyz\n";
        page += text.substr(0, std::min(text.size(), bodyEnd - page.size()));
    }
    return page + close;
}

ParamSchema httpServerSchema() {
    return {
        {"root",
         ParamType::string,
         QString(),
         0,
         0,
         {},
         "serve the files under this directory (empty: a generated /4k.html)"},
        {"threads", ParamType::integer, 1, 1, 256, {}, "I/O threads"},
        {"page_size", ParamType::size, 4096, 0, 64 << 20, {}, "size of the generated page at /4k.html"},
        {"sendfile",
         ParamType::boolean,
         true,
         0,
         0,
         {},
         "on: bodies by sendfile; off: read into a buffer and write (nginx's sendfile on|off)"},
    };
}

Result<RunResult> runHttpServer(const RunContext& ctx) {
    auto params = validateParams(httpServerSchema(), ctx.params);
    if (!params) return smcr::fail(params.error());
    Site site;
    site.root = params->value("root").toString().toStdString();
    site.sendfile = params->value("sendfile").toBool();
    while (site.root.size() > 1 && site.root.back() == '/') site.root.pop_back();
    if (!site.root.empty()) {
        struct stat st {};
        if (::stat(site.root.c_str(), &st) < 0 || !S_ISDIR(st.st_mode)) {
            return smcr::fail(smcr::Errc::invalidArgument, "root: '" + site.root + "' is not a directory");
        }
    } else {
        const std::string page = generatedPage(static_cast<size_t>(params->value("page_size").toDouble()));
        site.generatedFd = ::memfd_create("smclab-4k.html", MFD_CLOEXEC);
        if (site.generatedFd < 0) return smcr::fail(smcr::makeSystemError("memfd_create", errno));
        if (::write(site.generatedFd, page.data(), page.size()) != static_cast<ssize_t>(page.size())) {
            return smcr::fail(smcr::makeSystemError("writing the generated page", errno));
        }
        site.generatedSize = page.size();
    }
    EventServerConfig config;
    config.threads = static_cast<int>(params->value("threads").toDouble());
    config.accept = [&site](transports::Stream& stream, WorkerStats& stats, int) -> std::unique_ptr<Connection> {
        return std::make_unique<HttpConnection>(stream, site, stats);
    };
    auto totals = runEventServer(ctx, config);
    if (!totals) return smcr::fail(totals.error());
    RunResult r;
    r.workload = "http";
    r.role = smcr::Side::server;
    r.transport = ctx.transport->name();
    r.params = *params;
    r.elapsedSec = totals->wallSec;
    r.bytes = totals->bytesOut;
    r.ops = totals->ops;
    r.cpu = totals->cpu;
    r.summary = {{"requests", static_cast<double>(totals->ops)},
                 {"bytes_out", static_cast<double>(totals->bytesOut)},
                 {"bytes_in", static_cast<double>(totals->bytesIn)},
                 {"connections", static_cast<double>(totals->connections)},
                 {"errors", static_cast<double>(totals->errors)},
                 {"wall_sec", totals->wallSec},
                 {"requests_per_sec", totals->wallSec > 0 ? static_cast<double>(totals->ops) / totals->wallSec : 0.0}};
    r.counters = ctx.transport->counters();
    return r;
}

}  // namespace smclab::workloads
