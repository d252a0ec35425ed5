// redis-server + redis-benchmark as a workload (the RQ credits letter's
// benchmark): the server role runs `redis-server --bind HOST --port PORT
// --save "" --appendonly no --protected-mode no --io-threads N
// --io-threads-do-reads yes|no` in a fresh directory; the client role runs
// `redis-benchmark -h HOST -p PORT -q -t TESTS -n N -c C -d SIZE -P P
// --threads T` (or --csv) and reports each test as the kv workload does.
#include <QJsonArray>

#include "redis_output.h"
#include "tool_workload.h"
#include "tool_workloads.h"

namespace smclab::workloads {

namespace {

// redis-benchmark's --threads and the p50 of -q came with redis 6.
constexpr int kMinRedisVersion = 6000;

// Each test's line, with its request count and the seconds it took.
smcr::Status fillRedisResult(bool csv, double requests, const ToolExit& exit, RunResult& r) {
    auto report = parseRedisBenchmarkOutput(exit.out, csv ? RedisBenchmarkForm::csv : RedisBenchmarkForm::quiet);
    if (!report.ok()) return smcr::fail(report.error());
    QJsonArray tests;
    double seconds = 0;
    for (const QJsonValue& entry : report->value("tests").toArray()) {
        QJsonObject test = entry.toObject();
        const double rps = test.value("rps").toDouble();
        test.insert("requests", requests);
        if (rps > 0) {
            test.insert("seconds", requests / rps);
            seconds += requests / rps;
        }
        tests.append(test);
    }
    r.summary.insert("tests", tests);
    if (report->contains("warnings")) r.summary.insert("warnings", report->value("warnings"));
    r.ops = static_cast<uint64_t>(requests * tests.size());
    if (seconds > 0) r.elapsedSec = seconds;
    return {};
}

class RedisWorkload final : public ToolWorkload {
public:
    std::string name() const override { return "redis"; }
    std::vector<std::string> headlineMetrics() const override { return {"rps"}; }
    std::string summary() const override { return "the real redis-server, loaded by the real redis-benchmark"; }

protected:
    ParamSchema serverSchema() const override {
        return {
            {"io_threads", ParamType::integer, 1, 1, 128, {}, "redis-server --io-threads"},
            {"io_threads_do_reads", ParamType::boolean, true, 0, 0, {}, "redis-server --io-threads-do-reads"},
            cpuParam(),
        };
    }

    ParamSchema clientSchema() const override {
        return {
            {"tests",
             ParamType::stringList,
             QJsonArray{"set", "get"},
             0,
             0,
             {"set", "get", "incr", "lpush", "rpush", "lpop", "rpop", "sadd", "hset", "spop", "zadd", "zpopmin",
              "lrange_100", "lrange_300", "lrange_500", "lrange_600", "mset", "ping_inline", "ping_mbulk"},
             "redis-benchmark -t"},
            {"requests", ParamType::integer, 100000, 1, 1000000000, {}, "requests per test (-n)"},
            {"clients", ParamType::integer, 50, 1, 10000, {}, "parallel connections (-c)"},
            {"data_size", ParamType::size, 3, 1, 64 << 20, {}, "SET value size in bytes (-d)"},
            {"pipeline", ParamType::integer, 1, 1, 10000, {}, "commands per batch (-P)"},
            {"threads", ParamType::integer, 0, 0, 64, {}, "client threads (--threads; 0 = not given)"},
            {"keyspace", ParamType::integer, 0, 0, 1000000000000LL, {}, "random keys below this (-r; 0 = not given)"},
            {"output", ParamType::string, QStringLiteral("quiet"), 0, 0, {"quiet", "csv"}, "-q or --csv"},
            cpuParam(),
        };
    }

    const char* serverDirPrefix() const override { return "smclab-redis"; }

    Result<ToolPlan> serverPlan(const RunContext& ctx, uint16_t port, const std::string& dir) const override {
        return ToolPlan{
            .program = ToolProgram::redisServer,
            .args = {"--bind", listenAddress(ctx), "--port", std::to_string(port), "--save", "", "--appendonly", "no",
                     "--protected-mode", "no", "--daemonize", "no", "--dir", dir, "--io-threads",
                     std::to_string(ctx.params.value("io_threads").toInteger()), "--io-threads-do-reads",
                     ctx.params.value("io_threads_do_reads").toBool() ? "yes" : "no"},
            .minVersion = kMinRedisVersion};
    }

    Result<ToolPlan> clientPlan(const RunContext& ctx) const override {
        const QJsonObject& p = ctx.params;
        std::string testList;
        for (const QJsonValue& t : p.value("tests").toArray())
            testList += (testList.empty() ? "" : ",") + t.toString().toStdString();
        if (testList.empty()) return smcr::fail(smcr::Errc::invalidArgument, "tests: name at least one test");
        const bool csv = p.value("output").toString() == QLatin1String("csv");
        ToolPlan plan{.program = ToolProgram::redisBenchmark,
                      .args = {"-h", ctx.host, "-p", std::to_string(ctx.port), csv ? "--csv" : "-q", "-t", testList,
                               "-n", std::to_string(p.value("requests").toInteger()), "-c",
                               std::to_string(p.value("clients").toInteger()), "-d",
                               std::to_string(p.value("data_size").toInteger()), "-P",
                               std::to_string(p.value("pipeline").toInteger())},
                      .minVersion = kMinRedisVersion};
        if (const int64_t threads = p.value("threads").toInteger(); threads > 0) {
            plan.args.insert(plan.args.end(), {"--threads", std::to_string(threads)});
        }
        if (const int64_t keyspace = p.value("keyspace").toInteger(); keyspace > 0) {
            plan.args.insert(plan.args.end(), {"-r", std::to_string(keyspace)});
        }
        const double requests = static_cast<double>(p.value("requests").toInteger());
        plan.parse = [csv, requests](const ToolExit& exit, RunResult& r) {
            return fillRedisResult(csv, requests, exit, r);
        };
        return plan;
    }
};

}  // namespace

const Workload& redisToolWorkload() {
    static const RedisWorkload workload;
    return workload;
}

}  // namespace smclab::workloads
