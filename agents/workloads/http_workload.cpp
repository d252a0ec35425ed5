// http as a registered workload.
#include "http_client.h"
#include "http_server.h"
#include "workload_list.h"

namespace smclab::workloads {

namespace {

class HttpWorkload final : public Workload {
public:
    std::string name() const override { return "http"; }
    std::vector<std::string> headlineMetrics() const override { return {"rps"}; }
    std::string summary() const override {
        return "static files with TCP_CORK + writev + sendfile; wrk-like closed-loop client";
    }
    ParamSchema schema(smcr::Side role) const override {
        return role == smcr::Side::server ? httpServerSchema() : httpClientSchema();
    }
    Result<RunResult> run(const RunContext& ctx) const override {
        switch (ctx.role) {
            case smcr::Side::server:
                return runHttpServer(ctx);
            case smcr::Side::client:
                return runHttpClient(ctx);
            case smcr::Side::invalid:
                break;
        }
        return smcr::fail(smcr::Errc::invalidArgument, "role: must be server or client");
    }
};

}  // namespace

const Workload& httpWorkload() {
    static const HttpWorkload workload;
    return workload;
}

}  // namespace smclab::workloads
