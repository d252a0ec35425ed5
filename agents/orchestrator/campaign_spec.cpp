#include "campaign_spec.h"

namespace smclab::orchestrator {

QString CampaignSpec::baselineLabel() const {
    if (!baseline.isEmpty()) return baseline;
    return columns.empty() ? QString() : columns.front().label;
}

int CampaignSpec::columnIndex(const QString& label) const {
    for (size_t i = 0; i < columns.size(); ++i) {
        if (columns[i].label == label) return static_cast<int>(i);
    }
    return -1;
}

const char* agentLossPolicyName(AgentLossPolicy policy) {
    switch (policy) {
        case AgentLossPolicy::continueCampaign:
            return "continue";
        case AgentLossPolicy::pause:
            return "pause";
        case AgentLossPolicy::invalid:
            break;
    }
    return "invalid";
}

bool isKnownWorkload(const QString& name) {
    for (const char* known : kKnownWorkloads) {
        if (name == QLatin1String(known)) return true;
    }
    return false;
}

bool isKnownTransport(const QString& name) {
    for (const char* known : kKnownTransports) {
        if (name == QLatin1String(known)) return true;
    }
    return false;
}

}  // namespace smclab::orchestrator
