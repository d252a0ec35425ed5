#include "tool_workload.h"

namespace smclab::workloads {

void insertAll(QJsonObject& into, const QJsonObject& from) {
    for (auto it = from.begin(); it != from.end(); ++it) into.insert(it.key(), it.value());
}

std::string listenAddress(const RunContext& ctx) {
    return ctx.host.empty() ? "0.0.0.0" : ctx.host;
}

Result<RunResult> ToolWorkload::run(const RunContext& ctx) const {
    auto params = validateParams(schema(ctx.role), ctx.params);
    if (!params.ok()) return smcr::fail(params.error());
    RunContext c = ctx;
    c.params = *params;
    if (ctx.role == Role::server) return serve(c);
    if (ctx.role != Role::client) return smcr::fail(smcr::Errc::invalidArgument, "role: must be server or client");
    auto plan = clientPlan(c);
    if (!plan.ok()) return smcr::fail(plan.error());
    auto launch = prepareTool(c, plan->program, plan->args, plan->minVersion, plan->tcpPort);
    if (!launch.ok()) return smcr::fail(launch.error());
    return runClientTool(c, name(), std::move(*launch), plan->parse);
}

Result<RunResult> ToolWorkload::serve(const RunContext& ctx) const {
    auto port = choosePort(ctx.host, ctx.port);
    if (!port.ok()) return smcr::fail(port.error());
    std::string dir;
    if (const char* prefix = serverDirPrefix()) {
        auto made = makeTempDir(prefix);
        if (!made.ok()) return smcr::fail(made.error());
        dir = *made;
    }
    auto result = [&]() -> Result<RunResult> {
        auto plan = serverPlan(ctx, *port, dir);
        if (!plan.ok()) return smcr::fail(plan.error());
        auto launch = prepareTool(ctx, plan->program, plan->args, plan->minVersion, plan->tcpPort);
        if (!launch.ok()) return smcr::fail(launch.error());
        return serveTool(ctx, name(), std::move(*launch), *port, plan->summary);
    }();
    removeTree(dir);
    return result;
}

}  // namespace smclab::workloads
