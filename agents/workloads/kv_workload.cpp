// kv as a registered workload.
#include "kv_client.h"
#include "kv_server.h"
#include "workload_list.h"

namespace smclab::workloads {

namespace {

class KvWorkload final : public Workload {
public:
    std::string name() const override { return "kv"; }
    // One entry running several tests stores set_rps, get_rps ... instead (a table each).
    std::vector<std::string> headlineMetrics() const override { return {"rps"}; }
    std::string summary() const override { return "RESP SET/GET server with I/O threads; redis-benchmark-like client"; }
    ParamSchema schema(smcr::Side role) const override {
        return role == smcr::Side::server ? kvServerSchema() : kvClientSchema();
    }
    Result<RunResult> run(const RunContext& ctx) const override {
        switch (ctx.role) {
            case smcr::Side::server:
                return runKvServer(ctx);
            case smcr::Side::client:
                return runKvClient(ctx);
            case smcr::Side::invalid:
                break;
        }
        return smcr::fail(smcr::Errc::invalidArgument, "role: must be server or client");
    }
};

}  // namespace

const Workload& kvWorkload() {
    static const KvWorkload workload;
    return workload;
}

}  // namespace smclab::workloads
