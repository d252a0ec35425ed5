#include "protocol/states.h"

#include <array>
#include <utility>

namespace smclab::protocol {

namespace {

constexpr std::array<std::pair<RunState, const char*>, 8> kRunStates{{
    {RunState::accepted, "accepted"},
    {RunState::starting, "starting"},
    {RunState::ready, "ready"},
    {RunState::running, "running"},
    {RunState::stopping, "stopping"},
    {RunState::finished, "finished"},
    {RunState::stopped, "stopped"},
    {RunState::failed, "failed"},
}};

}  // namespace

QString sessionStateName(SessionState state) {
    switch (state) {
        case SessionState::handshake:
            return "handshake";
        case SessionState::idle:
            return "idle";
        case SessionState::running:
            return "running";
        case SessionState::closing:
            return "closing";
        case SessionState::invalid:
            break;
    }
    return "invalid";
}

QString runStateName(RunState state) {
    for (const auto& [value, name] : kRunStates) {
        if (value == state) return name;
    }
    return "invalid";
}

RunState runStateFromName(const QString& name) {
    for (const auto& [value, text] : kRunStates) {
        if (name == QLatin1String(text)) return value;
    }
    return RunState::invalid;
}

bool isTerminal(RunState state) {
    return state == RunState::finished || state == RunState::stopped || state == RunState::failed;
}

}  // namespace smclab::protocol
