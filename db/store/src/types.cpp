#include "smclab/db/types.h"

#include <cstddef>

namespace smclab::db {

namespace {

// Each enum's names as the store writes them, in one table that both
// directions read, so a name and its parse cannot drift apart. A value
// missing from its table (invalid, or one added without a name) is
// written "invalid" and nothing parses to it.
template <typename Enum>
struct Named {
    Enum value;
    const char* name;
};

constexpr Named<CampaignStatus> kCampaignStatusNames[] = {
    {CampaignStatus::planned, "planned"}, {CampaignStatus::running, "running"}, {CampaignStatus::paused, "paused"},
    {CampaignStatus::done, "done"},       {CampaignStatus::failed, "failed"},
};
constexpr Named<RunStatus> kRunStatusNames[] = {
    {RunStatus::planned, "planned"},
    {RunStatus::running, "running"},
    {RunStatus::done, "done"},
    {RunStatus::failed, "failed"},
};

template <typename Enum, size_t N>
QString nameOf(const Named<Enum> (&names)[N], Enum value) {
    for (const Named<Enum>& n : names) {
        if (n.value == value) return QLatin1String(n.name);
    }
    return QStringLiteral("invalid");
}

template <typename Enum, size_t N>
Enum valueOf(const Named<Enum> (&names)[N], const QString& text) {
    for (const Named<Enum>& n : names) {
        if (text == QLatin1String(n.name)) return n.value;
    }
    return Enum::invalid;
}

}  // namespace

QString statusName(CampaignStatus status) {
    return nameOf(kCampaignStatusNames, status);
}

QString statusName(RunStatus status) {
    return nameOf(kRunStatusNames, status);
}

CampaignStatus campaignStatusFromString(const QString& text) {
    return valueOf(kCampaignStatusNames, text);
}

RunStatus runStatusFromString(const QString& text) {
    return valueOf(kRunStatusNames, text);
}

}  // namespace smclab::db
