// Seeds a results database through the db API with the seed 000 tables:
// one campaign, tcp_bw and tcp_lat runs for three columns and 17 sizes.
#pragma once

#include <QString>

namespace smclab::gui::testing {

// Returns the campaign id, or 0 after printing why it failed.
qint64 seedStore(const QString& databasePath, const QString& campaignName);

// A campaign with three repetitions per cell (error bars), bandwidth over
// 1 B..64 KiB for SMC and TCP; its first run carries samples, counters, a
// live setting change, and one run (TCP, 64 B, third repetition) failed
// after 1.2 s with its samples and counters kept. Returns the campaign id, or 0.
qint64 seedRepeatedCampaign(const QString& databasePath);

// Points QSettings at a private folder so tests never touch the user's.
void isolateSettings(const QString& folder);

}  // namespace smclab::gui::testing
