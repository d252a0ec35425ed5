// Campaign files: JSON <-> CampaignSpec, with validation whose errors name
// the field ("columns[2].transport: unknown transport 'rdma' ..."). The
// format is documented in CAMPAIGNS.md.
#pragma once

#include <smcr/result.h>

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include "campaign_spec.h"

namespace smclab::orchestrator {

struct SpecError {
    QString field;  // JSON path: "columns[1].settings.autocorking_size"
    QString message;
    QString toString() const { return field.isEmpty() ? message : field + QStringLiteral(": ") + message; }
};

// Parses and validates; on failure the error message lists every problem,
// one "field: message" per line.
smcr::Result<CampaignSpec> campaignFromJson(const QJsonObject& json);
smcr::Result<CampaignSpec> campaignFromJsonText(const QByteArray& text);
smcr::Result<CampaignSpec> loadCampaignFile(const QString& path);

// Checks a spec built in code (the GUI's editor); the parser calls it too.
std::vector<SpecError> validateCampaign(const CampaignSpec& spec);
// Agent pairs are optional in a file (the CLI and GUI supply them); this
// checks the ones a run is about to use.
std::vector<SpecError> validateAgents(const std::vector<AgentPair>& agents);
QString joinErrors(const std::vector<SpecError>& errors);

// Canonical JSON (what the store keeps, and what resume re-reads).
QJsonObject campaignToJson(const CampaignSpec& spec);
smcr::Status saveCampaignFile(const CampaignSpec& spec, const QString& path);

// "HOST:PORT" -> host and port; false for anything else.
bool splitHostPort(const QString& text, QString* host, quint16* port);

}  // namespace smclab::orchestrator
