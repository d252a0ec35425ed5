#include "preset_params.h"

#include <algorithm>

#include "datapath_columns.h"
#include "presets.h"

namespace smclab::orchestrator {

namespace {

smcr::Unexpected unknown(const QString& what) {
    return smcr::fail(smcr::Errc::invalidArgument, what.toStdString());
}

const ColumnSpec* columnLabelled(const CampaignSpec& spec, const QString& label) {
    for (const ColumnSpec& c : spec.columns) {
        if (c.label == label) return &c;
    }
    return nullptr;
}

// The preset's own columns by key, in its order.
struct KeyedLabel {
    const char* key;
    const char* label;
    const char* summary;
};
constexpr KeyedLabel kCreditsColumns[] = {
    {"off", "SMC credits off", "SMC, lab.rq_credits=off"},
    {"on", "SMC credits on", "SMC, lab.rq_credits=on"},
    {"backlog", "SMC rx_backlog", "SMC, lab.rq_credits=off, lab.rx_backlog=on"},
    {"tcp", "TCP", "kernel TCP"},
};
constexpr KeyedLabel kStreamColumns[] = {
    {"smcr", "SMC-R", "libsmcr on the sim fabric, the engine's settings"},
    {"tcp", "TCP", "kernel TCP"},
};
constexpr KeyedLabel kSendfileColumns[] = {
    {"copy", "sendfile off", "sendfile off: read the file, write header and body (nginx sendfile off)"},
    {"timer", "sendfile on (orig)", "sendfile with lab.cork_timer_ms (the kernel before the fix: a delayed push)"},
    {"sendfile", "sendfile on (this)", "sendfile, corked data waits with no timer, uncork pushes at once (the fix)"},
};

template <size_t N>
std::vector<PresetColumnChoice> keyedColumns(const QString& preset, const KeyedLabel (&keys)[N]) {
    const CampaignSpec spec = *presetCampaign(preset);
    std::vector<PresetColumnChoice> out;
    for (const KeyedLabel& k : keys) {
        if (const ColumnSpec* c = columnLabelled(spec, QLatin1String(k.label)))
            out.push_back({QLatin1String(k.key), QLatin1String(k.summary), *c});
    }
    return out;
}

std::vector<PresetColumnChoice> datapathChoices() {
    std::vector<PresetColumnChoice> out;
    for (const DatapathColumn& c : datapathColumns())
        out.push_back({c.key, c.summary, {c.label, c.transport, {}, c.settings, {}, {}}});
    return out;
}

// sendfile-cork's reference column, outside the preset's table: kernel TCP
// with the same cork + sendfile pattern.
PresetColumnChoice tcpSendfileColumn() {
    return {QStringLiteral("tcp"),
            QStringLiteral("kernel TCP with the same cork + sendfile pattern, for reference"),
            {QStringLiteral("TCP sendfile"),
             QStringLiteral("tcp"),
             {},
             {},
             {},
             QJsonObject{{QStringLiteral("sendfile"), true}}}};
}

void insertAll(QJsonObject& into, const QJsonObject& from) {
    for (auto it = from.begin(); it != from.end(); ++it) into.insert(it.key(), it.value());
}

smcr::Result<std::vector<ColumnSpec>> chosenColumns(const QString& preset, const PresetParams& params,
                                                    const std::vector<ColumnSpec>& own) {
    const std::vector<PresetColumnChoice> choices = presetColumnChoices(preset);
    if (params.columns.isEmpty() && params.columnSettings.isEmpty()) return own;
    if (choices.empty()) return unknown(QStringLiteral("preset %1 has no columns to choose").arg(preset));
    QStringList keys = params.columns;
    if (keys.isEmpty()) {
        for (const ColumnSpec& c : own) {
            const auto it = std::find_if(choices.begin(), choices.end(),
                                         [&](const PresetColumnChoice& x) { return x.column.label == c.label; });
            if (it != choices.end()) keys << it->key;
        }
    }
    std::vector<ColumnSpec> out;
    for (const QString& key : keys) {
        const auto it =
            std::find_if(choices.begin(), choices.end(), [&](const PresetColumnChoice& x) { return x.key == key; });
        if (it == choices.end()) return unknown(QStringLiteral("preset %1 has no column '%2'").arg(preset, key));
        ColumnSpec column = it->column;
        if (column.transport == QLatin1String("smcr")) insertAll(column.settings, params.columnSettings.value(key));
        out.push_back(column);
    }
    return out;
}

}  // namespace

std::vector<PresetColumnChoice> presetColumnChoices(const QString& preset) {
    if (preset == QLatin1String("credits")) return keyedColumns(preset, kCreditsColumns);
    if (preset == QLatin1String("stream")) return keyedColumns(preset, kStreamColumns);
    if (preset == QLatin1String("sendfile-cork")) {
        std::vector<PresetColumnChoice> out = keyedColumns(preset, kSendfileColumns);
        out.push_back(tcpSendfileColumn());
        return out;
    }
    if (preset == QLatin1String(kDatapathPreset)) return datapathChoices();
    return {};
}

smcr::Result<CampaignSpec> presetWithParams(const QString& name, const PresetParams& params) {
    std::optional<CampaignSpec> preset = presetCampaign(name);
    if (!preset) return unknown(QStringLiteral("no preset '%1'").arg(name));
    CampaignSpec spec = std::move(*preset);
    if (!params.name.isEmpty()) spec.name = params.name;
    if (!params.description.isEmpty()) spec.description = params.description;
    if (params.durationMs) {
        spec.durationMs = *params.durationMs;
        spec.warmupMs = spec.durationMs / 5;
        spec.sampleIntervalMs = std::max(kMinSampleIntervalMs, std::min(spec.sampleIntervalMs, spec.durationMs / 2));
    }
    if (params.repetitions) spec.repetitions = *params.repetitions;
    if (!params.sizes.empty()) spec.sizes = params.sizes;
    if (!params.workloads.isEmpty()) {
        std::vector<WorkloadSpec> kept;
        for (const QString& workload : params.workloads) {
            const auto it = std::find_if(spec.workloads.begin(), spec.workloads.end(),
                                         [&](const WorkloadSpec& w) { return w.workload == workload; });
            if (it == spec.workloads.end())
                return unknown(QStringLiteral("preset %1 has no workload '%2'").arg(name, workload));
            kept.push_back(*it);
        }
        spec.workloads = std::move(kept);
    }
    for (WorkloadSpec& w : spec.workloads) {
        // A workload with sizes of its own gets the new ones; the others follow the campaign's.
        if (!params.sizes.empty() && !w.sizes.empty()) w.sizes = params.sizes;
        insertAll(w.params, params.workloadParams);
    }
    auto columns = chosenColumns(name, params, spec.columns);
    if (!columns) return smcr::fail(columns.error());
    spec.columns = std::move(*columns);
    for (ColumnSpec& c : spec.columns) {
        if (c.transport == QLatin1String("smcr")) insertAll(c.settings, params.smcSettings);
    }
    if (params.link) spec.transportOptions.insert(QStringLiteral("link"), *params.link);
    return spec;
}

}  // namespace smclab::orchestrator
