// Fits a tool preset (tool_presets.h) made at the letter's scale (8- to
// 32-core servers, 30 s runs, 2 000 000 requests) to the host it runs on:
// on 2 CPUs or fewer, or with --quick, thread and worker counts, connection
// counts, durations, request counts, sizes and repetitions come down, and
// pinning that assumed two machines is spread over one. Every change is
// returned as a sentence and appended to the campaign's notes, so tables
// and reports say what was scaled.
#pragma once

#include <QStringList>

#include "campaign_spec.h"

namespace smclab::orchestrator {

struct HostScale {
    int cpuCount = 0;      // CPUs of the host (both agents on it, for a local lab)
    bool quick = false;    // --quick: the shortest run that still exercises every cell
    bool oneHost = false;  // server and client agents share the host's CPUs
};

// Whether scaling applies at all (quick, or cpuCount <= 2).
bool scalingApplies(const HostScale& host);
// Changes `spec` in place; returns what it changed (empty: nothing).
QStringList scaleToolPreset(CampaignSpec& spec, const HostScale& host);

}  // namespace smclab::orchestrator
