#include "tool_workload.h"

namespace smclab::workloads {

void insertAll(QJsonObject& into, const QJsonObject& from) {
    for (auto it = from.begin(); it != from.end(); ++it) into.insert(it.key(), it.value());
}

std::string listenAddress(const RunContext& ctx) {
    return ctx.host.empty() ? "0.0.0.0" : ctx.host;
}

namespace {

// The run's facts say how it was sampled (tool.samples), or that it was not.
void noteSampling(RunResult& result, const ToolSampler& sampler) {
    QJsonObject tool = result.summary.value("tool").toObject();
    tool.insert("samples", QString::fromStdString(sampler.note()));
    result.summary.insert("tool", tool);
}

}  // namespace

Result<RunResult> ToolWorkload::run(const RunContext& ctx) const {
    auto params = validateParams(schema(ctx.role), ctx.params);
    if (!params.ok()) return smcr::fail(params.error());
    RunContext c = ctx;
    c.params = *params;
    if (ctx.role == smcr::Side::server) return serve(c);
    if (ctx.role != smcr::Side::client)
        return smcr::fail(smcr::Errc::invalidArgument, "role: must be server or client");
    auto plan = clientPlan(c);
    if (!plan.ok()) return smcr::fail(plan.error());
    auto launch = prepareTool(c, plan->program, plan->args, plan->minVersion);
    if (!launch.ok()) return smcr::fail(launch.error());
    const bool preloaded = !launch->statsDir.empty();
    ToolSampler sampler(c, toolProgramName(plan->program), plan->intervals, preloaded);
    auto result = runClientTool(c, name(), std::move(*launch), plan->parse,
                                [&sampler](const ToolProcess& process) { sampler.tick(process); });
    if (result.ok()) noteSampling(*result, sampler);
    return result;
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
        auto launch = prepareTool(ctx, plan->program, plan->args, plan->minVersion);
        if (!launch.ok()) return smcr::fail(launch.error());
        const bool preloaded = !launch->statsDir.empty();
        ToolSampler sampler(ctx, toolProgramName(plan->program), plan->intervals, preloaded);
        auto served = serveTool(ctx, name(), std::move(*launch), *port, plan->summary,
                                [&sampler](const ToolProcess& process) { sampler.tick(process); });
        if (served.ok()) noteSampling(*served, sampler);
        return served;
    }();
    removeTree(dir);
    return result;
}

}  // namespace smclab::workloads
