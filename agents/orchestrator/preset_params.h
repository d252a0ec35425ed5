// A preset run at another scale or with a few knobs turned: what the quick
// local runs (`smclab bench kv|sendfile|accept|stream`)
// change in the campaign presets, as parameters of the preset rather than
// edits of its spec in each command. Every parameter left unset keeps the
// preset's own value, so the preset stays the one definition of its columns
// and workloads.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <smcr/result.h>

#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>

#include "campaign_spec.h"

namespace smclab::orchestrator {

// A column a preset run can be given by key: the preset's own columns and,
// for some presets, columns kept out of its default table (the datapath
// series' isolation columns, sendfile-cork's kernel TCP reference).
struct PresetColumnChoice {
    QString key;      // "off", "copy", "nocork", ...
    QString summary;  // one line for --help
    ColumnSpec column;
};

// Every column `preset` can run, its default ones first; empty for a
// preset whose columns are not chosen by key.
std::vector<PresetColumnChoice> presetColumnChoices(const QString& preset);

struct PresetParams {
    QString name;         // the campaign's name; empty: the preset's
    QString description;  // its notes; empty: the preset's
    // Measured time per cell; the warm-up becomes a fifth of it and the
    // sample interval at most half of it.
    std::optional<int> durationMs;
    std::optional<int> repetitions;
    std::vector<uint64_t> sizes;  // of the campaign and of each workload with its own; empty: the preset's
    QStringList workloads;        // by workload name ("tcp_bw"), in the preset's order; empty: all
    QJsonObject workloadParams;   // into every workload's client params ("clients", "connections", ...)
    QJsonObject smcSettings;      // into every libsmcr column's settings, over the column's own
    QMap<QString, QJsonObject> columnSettings;  // by column key: into that libsmcr column's settings
    QStringList columns;                        // by key, in this order, first = baseline; empty: the preset's
    std::optional<QString> link;                // the sim link model (transportOptions "link")
};

// The preset `name` with `params`; an error naming an unknown preset, column
// key or workload.
smcr::Result<CampaignSpec> presetWithParams(const QString& name, const PresetParams& params);

}  // namespace smclab::orchestrator
