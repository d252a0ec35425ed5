#include "campaign_json.h"

#include <utility>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QSet>

#include "size_text.h"

namespace smclab::orchestrator {

namespace {

using Errors = std::vector<SpecError>;

QString at(const QString& base, int index) {
    return QStringLiteral("%1[%2]").arg(base).arg(index);
}
QString dot(const QString& base, const QString& key) {
    return base.isEmpty() ? key : base + QLatin1Char('.') + key;
}

// Unknown keys are errors: a typo ("repetition") must not silently fall
// back to a default.
void checkKeys(const QJsonObject& object, const QString& path, std::initializer_list<const char*> allowed,
               Errors& errors) {
    for (auto it = object.begin(); it != object.end(); ++it) {
        bool known = false;
        for (const char* key : allowed) known = known || it.key() == QLatin1String(key);
        if (!known) errors.push_back({dot(path, it.key()), QStringLiteral("unknown field")});
    }
}

QString takeString(const QJsonObject& object, const char* key, const QString& path, Errors& errors,
                   bool required = false) {
    const QJsonValue value = object.value(QLatin1String(key));
    if (value.isUndefined() || value.isNull()) {
        if (required) errors.push_back({dot(path, QLatin1String(key)), QStringLiteral("is required")});
        return {};
    }
    if (!value.isString()) {
        errors.push_back({dot(path, QLatin1String(key)), QStringLiteral("must be a string")});
        return {};
    }
    return value.toString();
}

QJsonObject takeObject(const QJsonObject& object, const char* key, const QString& path, Errors& errors) {
    const QJsonValue value = object.value(QLatin1String(key));
    if (value.isUndefined() || value.isNull()) return {};
    if (!value.isObject()) {
        errors.push_back({dot(path, QLatin1String(key)), QStringLiteral("must be an object")});
        return {};
    }
    return value.toObject();
}

std::optional<int64_t> takeInt(const QJsonObject& object, const char* key, const QString& path, Errors& errors) {
    const QJsonValue value = object.value(QLatin1String(key));
    if (value.isUndefined() || value.isNull()) return std::nullopt;
    const double d = value.toDouble(-1.5);
    if (!value.isDouble() || d != static_cast<double>(static_cast<int64_t>(d))) {
        errors.push_back({dot(path, QLatin1String(key)), QStringLiteral("must be an integer")});
        return std::nullopt;
    }
    return static_cast<int64_t>(d);
}

// "durationMs": 2000, or "duration": 2 / "2s" / "500ms".
std::optional<int64_t> takeDuration(const QJsonObject& object, const char* msKey, const char* textKey,
                                    const QString& path, Errors& errors) {
    if (object.contains(QLatin1String(msKey)) && object.contains(QLatin1String(textKey))) {
        errors.push_back(
            {dot(path, QLatin1String(textKey)),
             QStringLiteral("give either %1 or %2, not both").arg(QLatin1String(msKey), QLatin1String(textKey))});
        return std::nullopt;
    }
    if (object.contains(QLatin1String(msKey))) return takeInt(object, msKey, path, errors);
    const QJsonValue value = object.value(QLatin1String(textKey));
    if (value.isUndefined() || value.isNull()) return std::nullopt;
    std::optional<int64_t> ms;
    if (value.isDouble() && value.toDouble() >= 0) ms = static_cast<int64_t>(value.toDouble() * 1000.0 + 0.5);
    if (value.isString()) ms = parseDurationText(value.toString());
    if (!ms)
        errors.push_back(
            {dot(path, QLatin1String(textKey)), QStringLiteral("must be a duration like 2, \"2s\" or \"500ms\"")});
    return ms;
}

std::vector<uint64_t> takeSizes(const QJsonValue& value, const QString& path, Errors& errors) {
    std::vector<uint64_t> sizes;
    if (value.isString()) {
        QString error;
        auto parsed = parseSizeListText(value.toString(), &error);
        if (!parsed)
            errors.push_back({path, error});
        else
            sizes = std::move(*parsed);
        return sizes;
    }
    if (!value.isArray()) {
        errors.push_back({path, QStringLiteral("must be a list of sizes or a loop string like \"msg_size:1:64K:*2\"")});
        return sizes;
    }
    const QJsonArray array = value.toArray();
    for (int i = 0; i < array.size(); ++i) {
        const QJsonValue item = array[i];
        std::optional<uint64_t> size;
        if (item.isDouble() && item.toDouble() >= 0 && item.toDouble() == static_cast<double>(item.toInteger()))
            size = static_cast<uint64_t>(item.toInteger());
        else if (item.isString())
            size = parseSizeText(item.toString());
        if (!size)
            errors.push_back({at(path, i), QStringLiteral("must be a size in bytes (64, \"4K\")")});
        else
            sizes.push_back(*size);
    }
    return sizes;
}

WorkloadSpec parseWorkload(const QJsonValue& value, const QString& path, Errors& errors) {
    WorkloadSpec spec;
    if (value.isString()) {
        spec.workload = value.toString();
        spec.label = spec.workload;
        return spec;
    }
    if (!value.isObject()) {
        errors.push_back({path, QStringLiteral("must be a workload name or an object")});
        return spec;
    }
    const QJsonObject object = value.toObject();
    checkKeys(object, path, {"workload", "label", "params", "serverParams", "sizes"}, errors);
    spec.workload = takeString(object, "workload", path, errors, true);
    spec.label = takeString(object, "label", path, errors);
    if (spec.label.isEmpty()) spec.label = spec.workload;
    spec.params = takeObject(object, "params", path, errors);
    spec.serverParams = takeObject(object, "serverParams", path, errors);
    if (object.contains(QLatin1String("sizes")))
        spec.sizes = takeSizes(object.value(QLatin1String("sizes")), dot(path, QStringLiteral("sizes")), errors);
    return spec;
}

ColumnSpec parseColumn(const QJsonValue& value, const QString& path, Errors& errors) {
    ColumnSpec spec;
    if (!value.isObject()) {
        errors.push_back({path, QStringLiteral("must be an object with label, transport and settings")});
        return spec;
    }
    const QJsonObject object = value.toObject();
    checkKeys(object, path,
              {"label", "transport", "clientTransport", "settings", "clientSettings", "params", "serverParams"},
              errors);
    spec.label = takeString(object, "label", path, errors, true);
    spec.transport = takeString(object, "transport", path, errors, true);
    spec.clientTransport = takeString(object, "clientTransport", path, errors);
    spec.settings = takeObject(object, "settings", path, errors);
    spec.clientSettings = takeObject(object, "clientSettings", path, errors);
    spec.params = takeObject(object, "params", path, errors);
    spec.serverParams = takeObject(object, "serverParams", path, errors);
    return spec;
}

AgentPair parseAgentPair(const QJsonValue& value, const QString& path, Errors& errors) {
    AgentPair pair;
    if (!value.isObject()) {
        errors.push_back(
            {path, QStringLiteral("must be an object {\"server\": \"HOST:PORT\", \"client\": \"HOST:PORT\"}")});
        return pair;
    }
    const QJsonObject object = value.toObject();
    checkKeys(object, path, {"server", "client"}, errors);
    pair.server = takeString(object, "server", path, errors, true);
    pair.client = takeString(object, "client", path, errors, true);
    return pair;
}

void checkSizes(const std::vector<uint64_t>& sizes, const QString& path, Errors& errors) {
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] < 1 || sizes[i] > kMaxSizeBytes)
            errors.push_back({at(path, static_cast<int>(i)),
                              QStringLiteral("size %1 out of range 1..%2").arg(sizes[i]).arg(kMaxSizeBytes)});
    }
}

QString knownList(const char* const* names, size_t count) {
    QStringList list;
    for (size_t i = 0; i < count; ++i) list << QLatin1String(names[i]);
    return list.join(QStringLiteral(", "));
}

}  // namespace

bool splitHostPort(const QString& text, QString* host, quint16* port) {
    const int colon = text.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0) return false;
    bool ok = false;
    const uint value = text.mid(colon + 1).toUInt(&ok);
    if (!ok || value == 0 || value > 65535) return false;
    QString h = text.left(colon);
    if (h.startsWith(QLatin1Char('[')) && h.endsWith(QLatin1Char(']'))) h = h.mid(1, h.size() - 2);
    if (h.isEmpty()) return false;
    if (host) *host = h;
    if (port) *port = static_cast<quint16>(value);
    return true;
}

QString joinErrors(const std::vector<SpecError>& errors) {
    QStringList lines;
    for (const SpecError& error : errors) lines << error.toString();
    return lines.join(QLatin1Char('\n'));
}

std::vector<SpecError> validateAgents(const std::vector<AgentPair>& agents) {
    Errors errors;
    for (size_t i = 0; i < agents.size(); ++i) {
        const QString path = at(QStringLiteral("agents"), static_cast<int>(i));
        if (!splitHostPort(agents[i].server, nullptr, nullptr))
            errors.push_back(
                {dot(path, QStringLiteral("server")), QStringLiteral("'%1' is not HOST:PORT").arg(agents[i].server)});
        if (!splitHostPort(agents[i].client, nullptr, nullptr))
            errors.push_back(
                {dot(path, QStringLiteral("client")), QStringLiteral("'%1' is not HOST:PORT").arg(agents[i].client)});
    }
    return errors;
}

std::vector<SpecError> validateCampaign(const CampaignSpec& spec) {
    Errors errors;
    static const QRegularExpression kSettingName(QStringLiteral("^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)*$"));
    if (spec.name.trimmed().isEmpty()) errors.push_back({QStringLiteral("name"), QStringLiteral("must not be empty")});
    if (spec.workloads.empty())
        errors.push_back({QStringLiteral("workloads"), QStringLiteral("needs at least one workload")});
    if (spec.columns.empty())
        errors.push_back({QStringLiteral("columns"), QStringLiteral("needs at least one column")});

    QSet<QString> workloadLabels;
    bool anyWithoutSizes = false;
    for (size_t i = 0; i < spec.workloads.size(); ++i) {
        const WorkloadSpec& w = spec.workloads[i];
        const QString path = at(QStringLiteral("workloads"), static_cast<int>(i));
        if (!isKnownWorkload(w.workload))
            errors.push_back({dot(path, QStringLiteral("workload")),
                              QStringLiteral("unknown workload '%1' (known: %2)")
                                  .arg(w.workload, knownList(kKnownWorkloads, std::size(kKnownWorkloads)))});
        if (w.label.isEmpty())
            errors.push_back({dot(path, QStringLiteral("label")), QStringLiteral("must not be empty")});
        if (workloadLabels.contains(w.label))
            errors.push_back({dot(path, QStringLiteral("label")), QStringLiteral("'%1' is used twice").arg(w.label)});
        workloadLabels.insert(w.label);
        checkSizes(w.sizes, dot(path, QStringLiteral("sizes")), errors);
        anyWithoutSizes = anyWithoutSizes || w.sizes.empty();
    }
    if (anyWithoutSizes && spec.sizes.empty())
        errors.push_back(
            {QStringLiteral("sizes"), QStringLiteral("is required (or give every workload its own sizes)")});
    checkSizes(spec.sizes, QStringLiteral("sizes"), errors);

    QSet<QString> columnLabels;
    for (size_t i = 0; i < spec.columns.size(); ++i) {
        const ColumnSpec& c = spec.columns[i];
        const QString path = at(QStringLiteral("columns"), static_cast<int>(i));
        if (c.label.trimmed().isEmpty())
            errors.push_back({dot(path, QStringLiteral("label")), QStringLiteral("must not be empty")});
        if (columnLabels.contains(c.label))
            errors.push_back({dot(path, QStringLiteral("label")), QStringLiteral("'%1' is used twice").arg(c.label)});
        columnLabels.insert(c.label);
        const QString known = knownList(kKnownTransports, std::size(kKnownTransports));
        if (!isKnownTransport(c.transport))
            errors.push_back({dot(path, QStringLiteral("transport")),
                              QStringLiteral("unknown transport '%1' (known: %2)").arg(c.transport, known)});
        if (!c.clientTransport.isEmpty() && !isKnownTransport(c.clientTransport))
            errors.push_back({dot(path, QStringLiteral("clientTransport")),
                              QStringLiteral("unknown transport '%1' (known: %2)").arg(c.clientTransport, known)});
        for (const auto& [name, settings] : {std::pair{QStringLiteral("settings"), &c.settings},
                                             std::pair{QStringLiteral("clientSettings"), &c.clientSettings}}) {
            for (auto it = settings->begin(); it != settings->end(); ++it) {
                const QString field = dot(dot(path, name), it.key());
                if (!kSettingName.match(it.key()).hasMatch())
                    errors.push_back(
                        {field,
                         QStringLiteral("is not a setting name (lower case, e.g. autocorking_size or lab.cq_mode)")});
                if (!it.value().isDouble() && !it.value().isString() && !it.value().isBool())
                    errors.push_back({field, QStringLiteral("must be a number, a string or a boolean")});
            }
        }
        if (!c.clientSettings.isEmpty() && c.effectiveClientTransport() == c.transport)
            errors.push_back({dot(path, QStringLiteral("clientSettings")),
                              QStringLiteral("only for a clientTransport other than transport (the client end "
                                             "takes settings otherwise)")});
    }
    if (!spec.baseline.isEmpty() && !columnLabels.contains(spec.baseline))
        errors.push_back({QStringLiteral("baseline"), QStringLiteral("'%1' is not a column label").arg(spec.baseline)});

    if (spec.repetitions < 1 || spec.repetitions > kMaxRepetitions)
        errors.push_back({QStringLiteral("repetitions"), QStringLiteral("must be 1..%1").arg(kMaxRepetitions)});
    if (spec.durationMs < kMinDurationMs || spec.durationMs > kMaxDurationMs)
        errors.push_back({QStringLiteral("durationMs"),
                          QStringLiteral("must be %1..%2 ms").arg(kMinDurationMs).arg(kMaxDurationMs)});
    if (spec.warmupMs < 0 || spec.warmupMs > kMaxDurationMs)
        errors.push_back({QStringLiteral("warmupMs"), QStringLiteral("must be 0..%1 ms").arg(kMaxDurationMs)});
    if (spec.warmupMs > 0 && spec.warmupMs >= spec.durationMs)
        errors.push_back({QStringLiteral("warmupMs"), QStringLiteral("must be shorter than durationMs")});
    if (spec.sampleIntervalMs < kMinSampleIntervalMs || spec.sampleIntervalMs > 60000)
        errors.push_back(
            {QStringLiteral("sampleIntervalMs"), QStringLiteral("must be %1..60000 ms").arg(kMinSampleIntervalMs)});
    if (spec.quietHost.repeatBusy < 0 || spec.quietHost.repeatBusy > kMaxRepeatBusy)
        errors.push_back({QStringLiteral("quietHost.repeatBusy"), QStringLiteral("must be 0..%1").arg(kMaxRepeatBusy)});
    if (spec.quietHost.waitMs < 0 || spec.quietHost.waitMs > kMaxQuietWaitMs)
        errors.push_back({QStringLiteral("quietHost.waitMs"), QStringLiteral("must be 0..%1 ms").arg(kMaxQuietWaitMs)});
    if (spec.onAgentLoss == AgentLossPolicy::invalid)
        errors.push_back({QStringLiteral("onAgentLoss"), QStringLiteral("must be \"continue\" or \"pause\"")});
    const Errors agentErrors = validateAgents(spec.agents);
    errors.insert(errors.end(), agentErrors.begin(), agentErrors.end());
    return errors;
}

namespace {

// The list at `key`, each element parsed by `parse` at its own path; a
// missing key (or null, where `nullAllowed`) is an empty list.
template <typename T>
void takeList(const QJsonObject& json, const char* key, T (*parse)(const QJsonValue&, const QString&, Errors&),
              std::vector<T>* out, const QString& notAList, Errors& errors, bool nullAllowed = false) {
    const QJsonValue value = json.value(QLatin1String(key));
    if (value.isArray()) {
        const QJsonArray array = value.toArray();
        for (int i = 0; i < array.size(); ++i) out->push_back(parse(array[i], at(QString::fromLatin1(key), i), errors));
    } else if (!value.isUndefined() && !(nullAllowed && value.isNull())) {
        errors.push_back({QString::fromLatin1(key), notAList});
    }
}

// The matrix's numbers, clamped to one past their limits so that
// validateCampaign() names the field rather than an overflow.
void takeMatrixNumbers(const QJsonObject& json, CampaignSpec& spec, Errors& errors) {
    if (auto v = takeInt(json, "repetitions", QString(), errors))
        spec.repetitions = static_cast<int>(std::clamp<int64_t>(*v, -1, kMaxRepetitions + 1));
    if (auto v = takeDuration(json, "durationMs", "duration", QString(), errors))
        spec.durationMs = static_cast<int>(std::clamp<int64_t>(*v, -1, int64_t(kMaxDurationMs) + 1));
    if (auto v = takeDuration(json, "warmupMs", "warmup", QString(), errors))
        spec.warmupMs = static_cast<int>(std::clamp<int64_t>(*v, -1, int64_t(kMaxDurationMs) + 1));
    if (auto v = takeInt(json, "sampleIntervalMs", QString(), errors))
        spec.sampleIntervalMs = static_cast<int>(std::clamp<int64_t>(*v, -1, 60001));
}

void takeQuietHost(const QJsonObject& json, QuietHostSpec& quietHost, Errors& errors) {
    const QJsonValue quiet = json.value(QLatin1String("quietHost"));
    if (!quiet.isObject()) {
        if (!quiet.isUndefined()) errors.push_back({QStringLiteral("quietHost"), QStringLiteral("must be an object")});
        return;
    }
    const QJsonObject q = quiet.toObject();
    const QString path = QStringLiteral("quietHost");
    checkKeys(q, path, {"otherCpuPct", "stealPct", "repeatBusy", "waitMs"}, errors);
    for (const auto& [key, target] :
         {std::pair{"otherCpuPct", &quietHost.busyOtherCpuPct}, std::pair{"stealPct", &quietHost.busyStealPct}}) {
        const QJsonValue v = q.value(QLatin1String(key));
        if (v.isUndefined()) continue;
        if (!v.isDouble() || v.toDouble() < 0.0)
            errors.push_back({path + QLatin1Char('.') + QLatin1String(key), QStringLiteral("must be a number >= 0")});
        else
            *target = v.toDouble();
    }
    if (auto v = takeInt(q, "repeatBusy", path, errors))
        quietHost.repeatBusy = static_cast<int>(std::clamp<int64_t>(*v, -1, kMaxRepeatBusy + 1));
    if (auto v = takeInt(q, "waitMs", path, errors))
        quietHost.waitMs = static_cast<int>(std::clamp<int64_t>(*v, -1, kMaxQuietWaitMs + 1));
}

AgentLossPolicy agentLossPolicy(const QString& text) {
    if (text.isEmpty() || text == QLatin1String("continue")) return AgentLossPolicy::continueCampaign;
    if (text == QLatin1String("pause")) return AgentLossPolicy::pause;
    return AgentLossPolicy::invalid;
}

// Structural errors first; semantic checks only make sense on a spec whose
// fields parsed, but they add to the same list (one per field) so a user
// sees everything at once.
void addSemanticErrors(const CampaignSpec& spec, Errors& errors) {
    const Errors semantic = validateCampaign(spec);
    for (const SpecError& e : semantic) {
        bool duplicate = false;
        for (const SpecError& existing : errors) duplicate = duplicate || existing.field == e.field;
        if (!duplicate) errors.push_back(e);
    }
}

}  // namespace

smcr::Result<CampaignSpec> campaignFromJson(const QJsonObject& json) {
    Errors errors;
    CampaignSpec spec;
    checkKeys(json, QString(),
              {"name", "description", "preset", "workloads", "columns", "baseline", "sizes", "repetitions",
               "durationMs", "duration", "warmupMs", "warmup", "sampleIntervalMs", "transportOptions", "agents",
               "onAgentLoss", "quietHost"},
              errors);
    spec.name = takeString(json, "name", QString(), errors, true);
    spec.description = takeString(json, "description", QString(), errors);
    spec.preset = takeString(json, "preset", QString(), errors);
    spec.baseline = takeString(json, "baseline", QString(), errors);
    takeList(json, "workloads", parseWorkload, &spec.workloads, QStringLiteral("must be a list"), errors);
    takeList(json, "columns", parseColumn, &spec.columns, QStringLiteral("must be a list"), errors);
    if (json.contains(QLatin1String("sizes")))
        spec.sizes = takeSizes(json.value(QLatin1String("sizes")), QStringLiteral("sizes"), errors);
    takeMatrixNumbers(json, spec, errors);
    spec.transportOptions = takeObject(json, "transportOptions", QString(), errors);
    takeList(json, "agents", parseAgentPair, &spec.agents, QStringLiteral("must be a list of {server, client} pairs"),
             errors, true);
    takeQuietHost(json, spec.quietHost, errors);
    spec.onAgentLoss = agentLossPolicy(takeString(json, "onAgentLoss", QString(), errors));
    addSemanticErrors(spec, errors);
    if (!errors.empty()) return smcr::fail(smcr::Errc::invalidArgument, joinErrors(errors).toStdString());
    return spec;
}

smcr::Result<CampaignSpec> campaignFromJsonText(const QByteArray& text) {
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return smcr::fail(smcr::Errc::malformed, QStringLiteral("not valid JSON at offset %1: %2")
                                                     .arg(parseError.offset)
                                                     .arg(parseError.errorString())
                                                     .toStdString());
    if (!document.isObject()) return smcr::fail(smcr::Errc::malformed, "a campaign file must hold one JSON object");
    return campaignFromJson(document.object());
}

smcr::Result<CampaignSpec> loadCampaignFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return smcr::fail(
            smcr::Errc::notFound,
            QStringLiteral("cannot read campaign file %1: %2").arg(path, file.errorString()).toStdString());
    auto spec = campaignFromJsonText(file.readAll());
    if (!spec) return smcr::fail(spec.error().code, path.toStdString() + ": " + spec.error().message);
    return spec;
}

QJsonObject campaignToJson(const CampaignSpec& spec) {
    auto sizesToJson = [](const std::vector<uint64_t>& sizes) {
        QJsonArray array;
        for (uint64_t s : sizes) array.append(static_cast<qint64>(s));
        return array;
    };
    QJsonObject json;
    json[QStringLiteral("name")] = spec.name;
    if (!spec.description.isEmpty()) json[QStringLiteral("description")] = spec.description;
    if (!spec.preset.isEmpty()) json[QStringLiteral("preset")] = spec.preset;
    QJsonArray workloads;
    for (const WorkloadSpec& w : spec.workloads) {
        QJsonObject o;
        o[QStringLiteral("workload")] = w.workload;
        o[QStringLiteral("label")] = w.label;
        if (!w.params.isEmpty()) o[QStringLiteral("params")] = w.params;
        if (!w.serverParams.isEmpty()) o[QStringLiteral("serverParams")] = w.serverParams;
        if (!w.sizes.empty()) o[QStringLiteral("sizes")] = sizesToJson(w.sizes);
        workloads.append(o);
    }
    json[QStringLiteral("workloads")] = workloads;
    QJsonArray columns;
    for (const ColumnSpec& c : spec.columns) {
        QJsonObject o;
        o[QStringLiteral("label")] = c.label;
        o[QStringLiteral("transport")] = c.transport;
        if (!c.clientTransport.isEmpty()) o[QStringLiteral("clientTransport")] = c.clientTransport;
        o[QStringLiteral("settings")] = c.settings;
        if (!c.clientSettings.isEmpty()) o[QStringLiteral("clientSettings")] = c.clientSettings;
        if (!c.params.isEmpty()) o[QStringLiteral("params")] = c.params;
        if (!c.serverParams.isEmpty()) o[QStringLiteral("serverParams")] = c.serverParams;
        columns.append(o);
    }
    json[QStringLiteral("columns")] = columns;
    if (!spec.baseline.isEmpty()) json[QStringLiteral("baseline")] = spec.baseline;
    if (!spec.sizes.empty()) json[QStringLiteral("sizes")] = sizesToJson(spec.sizes);
    json[QStringLiteral("repetitions")] = spec.repetitions;
    json[QStringLiteral("durationMs")] = spec.durationMs;
    json[QStringLiteral("warmupMs")] = spec.warmupMs;
    json[QStringLiteral("sampleIntervalMs")] = spec.sampleIntervalMs;
    if (!spec.transportOptions.isEmpty()) json[QStringLiteral("transportOptions")] = spec.transportOptions;
    if (!spec.agents.empty()) {
        QJsonArray agents;
        for (const AgentPair& pair : spec.agents)
            agents.append(
                QJsonObject{{QStringLiteral("server"), pair.server}, {QStringLiteral("client"), pair.client}});
        json[QStringLiteral("agents")] = agents;
    }
    json[QStringLiteral("onAgentLoss")] = QLatin1String(agentLossPolicyName(spec.onAgentLoss));
    if (spec.quietHost != QuietHostSpec{}) {
        json[QStringLiteral("quietHost")] = QJsonObject{{QStringLiteral("otherCpuPct"), spec.quietHost.busyOtherCpuPct},
                                                        {QStringLiteral("stealPct"), spec.quietHost.busyStealPct},
                                                        {QStringLiteral("repeatBusy"), spec.quietHost.repeatBusy},
                                                        {QStringLiteral("waitMs"), spec.quietHost.waitMs}};
    }
    return json;
}

smcr::Status saveCampaignFile(const CampaignSpec& spec, const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return smcr::fail(smcr::Errc::systemError,
                          QStringLiteral("cannot write %1: %2").arg(path, file.errorString()).toStdString());
    file.write(QJsonDocument(campaignToJson(spec)).toJson(QJsonDocument::Indented));
    if (!file.flush())
        return smcr::fail(smcr::Errc::systemError,
                          QStringLiteral("cannot write %1: %2").arg(path, file.errorString()).toStdString());
    return {};
}

}  // namespace smclab::orchestrator
