// The skeleton every tool workload shares, written once: validate the
// parameters against the role's schema, then for the server role choose the
// port, give the tool a fresh directory if it wants one, build its command,
// start it, watch it listen and stop it at the end (serveTool); for the
// client role build its command, run it to the end and parse its output
// (runClientTool). A tool says only what differs: its schemas, and the
// program and arguments of each role as a ToolPlan.
#pragma once

#include <string>
#include <vector>

#include "tool_run.h"
#include "tool_sampler.h"

namespace smclab::workloads {

// What one role of a tool runs, built from validated parameters only.
struct ToolPlan {
    ToolProgram program = ToolProgram::invalid;
    std::vector<std::string> args{};  // the tool's own arguments (no wrapper)
    int minVersion = 0;               // MAJOR*1000+MINOR, 0 = any
    QJsonObject summary{};            // server: figures added to its result (nginx's generated config)
    ToolParser parse{};               // client: fills the result from the tool's exit
    ToolIntervalReader intervals{};   // the tool prints interval lines: live samples from them
};

class ToolWorkload : public Workload {
public:
    ParamSchema schema(smcr::Side role) const final {
        return role == smcr::Side::server ? serverSchema() : clientSchema();
    }
    Result<RunResult> run(const RunContext& ctx) const final;

protected:
    virtual ParamSchema serverSchema() const = 0;
    virtual ParamSchema clientSchema() const = 0;
    // Non-null: the server gets a fresh directory with this prefix
    // (makeTempDir), removed with everything in it when the run ends.
    virtual const char* serverDirPrefix() const { return nullptr; }
    // ctx.params are validated; `dir` is empty unless serverDirPrefix().
    virtual Result<ToolPlan> serverPlan(const RunContext& ctx, uint16_t port, const std::string& dir) const = 0;
    virtual Result<ToolPlan> clientPlan(const RunContext& ctx) const = 0;

private:
    Result<RunResult> serve(const RunContext& ctx) const;
};

// Every member of `from` into `into` (a parser's figures into a summary).
void insertAll(QJsonObject& into, const QJsonObject& from);
// The address a server binds: the run's host, or every IPv4 address.
std::string listenAddress(const RunContext& ctx);

}  // namespace smclab::workloads
