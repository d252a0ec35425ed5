// The presets that are the cover letters, run with the letters' own tools
// (the tool workloads: qperf, nginx + wrk, redis-server + redis-benchmark):
// seed000-qperf, seed002-nginx, seed003-shortconn, seed004-redis. Each is
// the letter's command line at the letter's scale; preset_scaling.h fits
// them to a smaller host and says what it changed.
#pragma once

#include <optional>

#include <QString>

#include "campaign_spec.h"

namespace smclab::orchestrator {

CampaignSpec seed000QperfPreset();
CampaignSpec seed002NginxPreset();
CampaignSpec seed003ShortconnPreset();
CampaignSpec seed004RedisPreset();

// Whether `name` is one of these (their cells run programs, not look-alikes).
bool isToolPreset(const QString& name);

}  // namespace smclab::orchestrator
