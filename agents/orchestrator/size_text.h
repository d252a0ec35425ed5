// Sizes and durations as people write them in campaign files: "4K" (1024s,
// qperf's rule) and "4k" (1000s), qperf's "-oo msg_size:1:64K:*2" loops,
// and "30s" / "500ms" durations.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <QString>

namespace smclab::orchestrator {

std::optional<uint64_t> parseSizeText(const QString& text);
// "msg_size:1:64K:*2" or "1:64K:*2": Init..Last inclusive, "*N" multiplies,
// "N" adds. Sets *error on failure.
std::optional<std::vector<uint64_t>> parseSizeLoopText(const QString& text, QString* error);
// A loop, or a comma-separated list of sizes ("1,2,4K").
std::optional<std::vector<uint64_t>> parseSizeListText(const QString& text, QString* error);
// "30" (seconds), "30s", "500ms", "2m", "0.2" / "0.2s" (fractions allowed).
std::optional<int64_t> parseDurationText(const QString& text);

}  // namespace smclab::orchestrator
