#include "smclab/db/types.h"

namespace smclab::db {

QString statusName(CampaignStatus status) {
    switch (status) {
        case CampaignStatus::planned:
            return QStringLiteral("planned");
        case CampaignStatus::running:
            return QStringLiteral("running");
        case CampaignStatus::paused:
            return QStringLiteral("paused");
        case CampaignStatus::done:
            return QStringLiteral("done");
        case CampaignStatus::failed:
            return QStringLiteral("failed");
        case CampaignStatus::invalid:
            break;
    }
    return QStringLiteral("invalid");
}

QString statusName(RunStatus status) {
    switch (status) {
        case RunStatus::planned:
            return QStringLiteral("planned");
        case RunStatus::running:
            return QStringLiteral("running");
        case RunStatus::done:
            return QStringLiteral("done");
        case RunStatus::failed:
            return QStringLiteral("failed");
        case RunStatus::invalid:
            break;
    }
    return QStringLiteral("invalid");
}

QString sideName(Side side) {
    switch (side) {
        case Side::client:
            return QStringLiteral("client");
        case Side::server:
            return QStringLiteral("server");
        case Side::invalid:
            break;
    }
    return QStringLiteral("invalid");
}

CampaignStatus campaignStatusFromString(const QString& text) {
    for (CampaignStatus s : {CampaignStatus::planned, CampaignStatus::running, CampaignStatus::paused,
                             CampaignStatus::done, CampaignStatus::failed}) {
        if (statusName(s) == text) return s;
    }
    return CampaignStatus::invalid;
}

RunStatus runStatusFromString(const QString& text) {
    for (RunStatus s : {RunStatus::planned, RunStatus::running, RunStatus::done, RunStatus::failed}) {
        if (statusName(s) == text) return s;
    }
    return RunStatus::invalid;
}

Side sideFromString(const QString& text) {
    if (text == QLatin1String("client")) return Side::client;
    if (text == QLatin1String("server")) return Side::server;
    return Side::invalid;
}

}  // namespace smclab::db
