#include "kv_server.h"

#include <cctype>
#include <cstring>
#include <vector>

#include "event_server.h"
#include "kv_store.h"
#include "resp.h"

namespace smclab::workloads {

namespace {

using transports::Interest;

constexpr size_t kReadChunk = 16 * 1024;
constexpr size_t kMaxPendingOut = 4 << 20;  // stop reading while this much reply waits

bool is(std::string_view arg, const char* upper) {
    const size_t n = std::strlen(upper);
    if (arg.size() != n) return false;
    for (size_t i = 0; i < n; ++i) {
        if (std::toupper(static_cast<unsigned char>(arg[i])) != upper[i]) return false;
    }
    return true;
}

class KvConnection final : public Connection {
public:
    KvConnection(transports::Stream& stream, KvStore& store, WorkerStats& stats)
        : m_stream(stream), m_store(store), m_stats(stats) {
        m_in.resize(kReadChunk);
    }

    Interest onReady(Interest ready) override {
        if (m_outSent < m_out.size()) {
            const Interest flushed = flush();
            if (flushed != Interest::read) return flushed;
        }
        if (any(ready & Interest::read) && !m_closing) {
            if (m_inLen == m_in.size()) m_in.resize(m_in.size() * 2);
            auto n = m_stream.read(m_in.data() + m_inLen, m_in.size() - m_inLen);
            if (!n) {
                if (n.error().code != smcr::Errc::wouldBlock) return Interest::none;
                return Interest::read;
            }
            if (*n == 0) return Interest::none;
            m_inLen += *n;
            m_stats.bytesIn.fetch_add(*n, std::memory_order_relaxed);
            execute();
        }
        const Interest flushed = flush();
        if (flushed == Interest::read && m_closing) return Interest::none;
        return flushed;
    }

private:
    void execute() {
        size_t pos = 0;
        uint64_t answered = 0;
        while (pos < m_inLen && !m_closing && m_out.size() < kMaxPendingOut) {
            const resp::Parse parse = resp::parseCommand(std::string_view(m_in.data() + pos, m_inLen - pos), m_command);
            if (parse == resp::Parse::incomplete) break;
            if (parse == resp::Parse::error) {
                resp::appendError(m_out, "ERR " + m_command.error);
                m_closing = true;  // like Redis: a protocol error ends the connection
                pos = m_inLen;
                break;
            }
            pos += m_command.consumed;
            if (m_command.args.empty()) continue;  // empty inline line
            dispatch(m_command.args);
            ++answered;
        }
        if (pos > 0) {
            std::memmove(m_in.data(), m_in.data() + pos, m_inLen - pos);
            m_inLen -= pos;
        }
        if (m_inLen > resp::kMaxBulkBytes + 1024) {
            resp::appendError(m_out, "ERR Protocol error: request too large");
            m_closing = true;
        }
        m_stats.ops.fetch_add(answered, std::memory_order_relaxed);
    }

    void dispatch(const std::vector<std::string_view>& a) {
        const std::string_view cmd = a[0];
        const size_t n = a.size();
        if (is(cmd, "GET")) {
            if (n != 2) return wrongArgs("get");
            m_store.appendGetReply(a[1], m_out);
        } else if (is(cmd, "SET")) {
            if (n < 3) return wrongArgs("set");
            m_store.set(a[1], a[2]);
            resp::appendSimple(m_out, "OK");
        } else if (is(cmd, "PING")) {
            if (n > 2) return wrongArgs("ping");
            if (n == 2)
                resp::appendBulk(m_out, a[1]);
            else
                resp::appendSimple(m_out, "PONG");
        } else if (is(cmd, "DEL") || is(cmd, "UNLINK")) {
            if (n < 2) return wrongArgs("del");
            int64_t removed = 0;
            for (size_t i = 1; i < n; ++i) removed += m_store.erase(a[i]) ? 1 : 0;
            resp::appendInteger(m_out, removed);
        } else if (is(cmd, "EXISTS")) {
            if (n < 2) return wrongArgs("exists");
            int64_t found = 0;
            for (size_t i = 1; i < n; ++i) found += m_store.contains(a[i]) ? 1 : 0;
            resp::appendInteger(m_out, found);
        } else if (is(cmd, "ECHO")) {
            if (n != 2) return wrongArgs("echo");
            resp::appendBulk(m_out, a[1]);
        } else if (is(cmd, "CONFIG")) {
            config(a);
        } else if (is(cmd, "COMMAND")) {
            resp::appendArrayHeader(m_out, 0);
        } else if (is(cmd, "DBSIZE")) {
            resp::appendInteger(m_out, static_cast<int64_t>(m_store.size()));
        } else if (is(cmd, "FLUSHALL") || is(cmd, "FLUSHDB")) {
            m_store.clear();
            resp::appendSimple(m_out, "OK");
        } else if (is(cmd, "SELECT")) {
            if (n != 2) return wrongArgs("select");
            if (a[1] == "0")
                resp::appendSimple(m_out, "OK");
            else
                resp::appendError(m_out, "ERR DB index is out of range");
        } else if (is(cmd, "QUIT")) {
            resp::appendSimple(m_out, "OK");
            m_closing = true;
        } else {
            std::string name(cmd.substr(0, 128));
            resp::appendError(m_out, "ERR unknown command '" + name + "'");
        }
    }

    // redis-benchmark reads "save" and "appendonly" for its report header.
    void config(const std::vector<std::string_view>& a) {
        if (a.size() < 3 || !is(a[1], "GET")) {
            if (a.size() >= 2 && (is(a[1], "SET") || is(a[1], "RESETSTAT"))) {
                resp::appendSimple(m_out, "OK");
                return;
            }
            resp::appendError(m_out, "ERR unknown subcommand or wrong number of arguments for 'config'");
            return;
        }
        struct Item {
            const char* name;
            const char* value;
        };
        static const Item kItems[] = {{"save", ""}, {"appendonly", "no"}, {"databases", "1"}};
        std::vector<const Item*> matches;
        for (size_t i = 2; i < a.size(); ++i) {
            for (const Item& item : kItems) {
                std::string lower(a[i]);
                for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                if (lower == item.name || lower == "*") matches.push_back(&item);
            }
        }
        resp::appendArrayHeader(m_out, matches.size() * 2);
        for (const Item* item : matches) {
            resp::appendBulk(m_out, item->name);
            resp::appendBulk(m_out, item->value);
        }
    }

    void wrongArgs(const char* name) {
        resp::appendError(m_out, std::string("ERR wrong number of arguments for '") + name + "' command");
    }

    Interest flush() {
        while (m_outSent < m_out.size()) {
            auto n = m_stream.write(m_out.data() + m_outSent, m_out.size() - m_outSent);
            if (!n) {
                if (n.error().code == smcr::Errc::wouldBlock) return Interest::write;
                m_stats.errors.fetch_add(1, std::memory_order_relaxed);
                return Interest::none;
            }
            m_outSent += *n;
            m_stats.bytesOut.fetch_add(*n, std::memory_order_relaxed);
        }
        m_out.clear();
        m_outSent = 0;
        // Commands left unparsed because the reply buffer was full.
        if (m_inLen > 0 && !m_closing) {
            execute();
            if (!m_out.empty()) return flush();
        }
        return Interest::read;
    }

    transports::Stream& m_stream;
    KvStore& m_store;
    WorkerStats& m_stats;
    std::vector<char> m_in;
    size_t m_inLen = 0;
    std::string m_out;
    size_t m_outSent = 0;
    bool m_closing = false;
    resp::Command m_command;
};

}  // namespace

ParamSchema kvServerSchema() {
    return {
        {"threads", ParamType::integer, 1, 1, 256, {}, "I/O threads"},
    };
}

Result<RunResult> runKvServer(const RunContext& ctx) {
    auto params = validateParams(kvServerSchema(), ctx.params);
    if (!params) return smcr::fail(params.error());
    KvStore store;
    EventServerConfig config;
    config.threads = static_cast<int>(params->value("threads").toDouble());
    config.accept = [&store](transports::Stream& stream, WorkerStats& stats, int) -> std::unique_ptr<Connection> {
        return std::make_unique<KvConnection>(stream, store, stats);
    };
    auto totals = runEventServer(ctx, config);
    if (!totals) return smcr::fail(totals.error());
    RunResult r;
    r.workload = "kv";
    r.role = smcr::Side::server;
    r.transport = ctx.transport->name();
    r.params = *params;
    r.elapsedSec = totals->wallSec;
    r.bytes = totals->bytesIn + totals->bytesOut;
    r.ops = totals->ops;
    r.cpu = totals->cpu;
    r.summary = {{"commands", static_cast<double>(totals->ops)},
                 {"bytes_in", static_cast<double>(totals->bytesIn)},
                 {"bytes_out", static_cast<double>(totals->bytesOut)},
                 {"connections", static_cast<double>(totals->connections)},
                 {"errors", static_cast<double>(totals->errors)},
                 {"keys", static_cast<double>(store.size())},
                 {"wall_sec", totals->wallSec}};
    r.counters = ctx.transport->counters();
    return r;
}

}  // namespace smclab::workloads
