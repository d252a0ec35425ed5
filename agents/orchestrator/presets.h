// Built-in campaigns that reproduce the published experiments the lab was
// made for. Each names the engine settings of its columns by their kernel
// sysctl names or lab.* names; the agents apply them.
#pragma once

#include <optional>
#include <span>

#include <QString>
#include <QStringList>

#include "campaign_spec.h"

namespace smclab::orchestrator {

struct PresetInfo {
    const char* name;
    const char* summary;
};

// The credits preset's RNR-triggering receive side (every SMC column).
inline constexpr const char* kCreditsRecvWrSetting = "smcr_max_recv_wr";
inline constexpr int kCreditsRecvWr = 16;
inline constexpr const char* kCreditsRepostDelaySetting = "lab.rx_repost_delay_us";
inline constexpr int kCreditsRepostDelayUs = 20;

// datapath, sendfile-cork, fallback, credits (the look-alike workloads),
// stream (SMC-R and TCP as they come, `smclab bench stream`), then
// seed000-qperf, seed002-nginx, seed003-shortconn, seed004-redis (the
// letters' own tools, tool_presets.h).
std::span<const PresetInfo> presetList();
QStringList presetNames();
// Without agents (the caller adds them); nullopt for an unknown name.
std::optional<CampaignSpec> presetCampaign(const QString& name);

}  // namespace smclab::orchestrator
