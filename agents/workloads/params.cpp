// Parameter validation against a workload's schema (workload.h).
#include <cmath>
#include <optional>
#include <string>

#include <QJsonArray>

#include "workload.h"

namespace smclab::workloads {

namespace {

std::optional<int64_t> parseInteger(const std::string& digits) {
    if (digits.empty()) return std::nullopt;
    int64_t value = 0;
    size_t i = 0;
    for (; i < digits.size(); ++i) {
        const char c = digits[i];
        if (c < '0' || c > '9') return std::nullopt;
        if (value > (INT64_MAX - 9) / 10) return std::nullopt;
        value = value * 10 + (c - '0');
    }
    return value;
}

// "64K" = 65536, "64k" = 64000 (qperf), "kib"/"kb" spellings, M/G likewise.
std::optional<int64_t> parseSizeText(const std::string& text) {
    struct Suffix {
        const char* text;
        int64_t factor;
    };
    static const Suffix kSuffixes[] = {
        {"KiB", 1024}, {"kib", 1024},  {"MiB", 1 << 20}, {"mib", 1 << 20}, {"GiB", 1 << 30},   {"gib", 1 << 30},
        {"KB", 1000},  {"kb", 1000},   {"MB", 1000000},  {"mb", 1000000},  {"GB", 1000000000}, {"gb", 1000000000},
        {"K", 1024},   {"M", 1 << 20}, {"G", 1 << 30},   {"k", 1000},      {"m", 1000000},     {"g", 1000000000},
    };
    for (const Suffix& s : kSuffixes) {
        const std::string suffix = s.text;
        if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
            auto v = parseInteger(text.substr(0, text.size() - suffix.size()));
            if (!v || *v > INT64_MAX / s.factor) return std::nullopt;
            return *v * s.factor;
        }
    }
    return parseInteger(text);
}

std::optional<int64_t> parseDurationText(const std::string& text) {
    struct Unit {
        const char* suffix;
        int64_t ms;
    };
    static const Unit kUnits[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}};
    for (const Unit& u : kUnits) {
        const std::string suffix = u.suffix;
        if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
            auto v = parseInteger(text.substr(0, text.size() - suffix.size()));
            if (!v || *v > INT64_MAX / u.ms) return std::nullopt;
            return *v * u.ms;
        }
    }
    return parseInteger(text);
}

std::string typeName(ParamType type) {
    switch (type) {
        case ParamType::integer:
            return "an integer";
        case ParamType::size:
            return "a size in bytes (number or \"64K\")";
        case ParamType::durationMs:
            return "a duration in ms (number or \"2s\")";
        case ParamType::boolean:
            return "true or false";
        case ParamType::string:
            return "a string";
        case ParamType::stringList:
            return "a list of strings";
        case ParamType::invalid:
            break;
    }
    return "?";
}

std::string describe(const QJsonValue& v) {
    switch (v.type()) {
        case QJsonValue::Null:
            return "null";
        case QJsonValue::Bool:
            return v.toBool() ? "true" : "false";
        case QJsonValue::Double: {
            const double d = v.toDouble();
            if (std::floor(d) == d && std::fabs(d) < 1e18) return std::to_string(static_cast<int64_t>(d));
            return std::to_string(d);
        }
        case QJsonValue::String:
            return "\"" + v.toString().toStdString() + "\"";
        case QJsonValue::Array:
            return "an array";
        case QJsonValue::Object:
            return "an object";
        case QJsonValue::Undefined:
            break;
    }
    return "nothing";
}

smcr::Unexpected fieldError(const ParamSpec& spec, const std::string& what) {
    return smcr::fail(smcr::Errc::invalidArgument, spec.name + ": " + what);
}

std::string choicesText(const ParamSpec& spec) {
    std::string out;
    for (const std::string& c : spec.choices) out += (out.empty() ? "" : ", ") + c;
    return out;
}

Result<QJsonValue> checkOne(const ParamSpec& spec, const QJsonValue& value) {
    switch (spec.type) {
        case ParamType::integer:
        case ParamType::size:
        case ParamType::durationMs: {
            std::optional<int64_t> number;
            if (value.isDouble()) {
                const double d = value.toDouble();
                if (std::floor(d) == d && std::fabs(d) < 9.0e18) number = static_cast<int64_t>(d);
            } else if (value.isString() && spec.type != ParamType::integer) {
                const std::string text = value.toString().toStdString();
                number = spec.type == ParamType::size ? parseSizeText(text) : parseDurationText(text);
            }
            if (!number) return fieldError(spec, "must be " + typeName(spec.type) + ", got " + describe(value));
            if (*number < spec.minValue || *number > spec.maxValue) {
                return fieldError(spec, "must be in " + std::to_string(spec.minValue) + ".." +
                                            std::to_string(spec.maxValue) + ", got " + std::to_string(*number));
            }
            return QJsonValue(static_cast<double>(*number));
        }
        case ParamType::boolean:
            if (value.isBool()) return value;
            // The lab's setting spelling (nginx's "sendfile on|off") too.
            if (value.isString()) {
                const QString text = value.toString();
                if (text == QLatin1String("on") || text == QLatin1String("true")) return QJsonValue(true);
                if (text == QLatin1String("off") || text == QLatin1String("false")) return QJsonValue(false);
            }
            return fieldError(spec, "must be true or false (or \"on\"/\"off\"), got " + describe(value));
        case ParamType::string: {
            if (!value.isString()) return fieldError(spec, "must be a string, got " + describe(value));
            const std::string text = value.toString().toStdString();
            if (!spec.choices.empty() &&
                std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end()) {
                return fieldError(spec, "must be one of " + choicesText(spec) + ", got \"" + text + "\"");
            }
            return value;
        }
        case ParamType::stringList: {
            QJsonArray items;
            if (value.isString()) {
                for (const QString& part : value.toString().split(',', Qt::SkipEmptyParts))
                    items.append(part.trimmed());
            } else if (value.isArray()) {
                for (const QJsonValue& item : value.toArray()) {
                    if (!item.isString())
                        return fieldError(spec, "must be a list of strings, got " + describe(item) + " in it");
                    items.append(item);
                }
            } else {
                return fieldError(spec, "must be a list of strings, got " + describe(value));
            }
            for (const QJsonValue& item : items) {
                const std::string text = item.toString().toStdString();
                if (!spec.choices.empty() &&
                    std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end()) {
                    return fieldError(spec, "items must be among " + choicesText(spec) + ", got \"" + text + "\"");
                }
            }
            return QJsonValue(items);
        }
        case ParamType::invalid:
            break;
    }
    return fieldError(spec, "has no type in the schema");
}

}  // namespace

Result<QJsonObject> validateParams(const ParamSchema& schema, const QJsonObject& params) {
    for (auto it = params.begin(); it != params.end(); ++it) {
        const std::string key = it.key().toStdString();
        bool known = false;
        for (const ParamSpec& spec : schema) known = known || spec.name == key;
        if (!known) {
            std::string names;
            for (const ParamSpec& spec : schema) names += (names.empty() ? "" : ", ") + spec.name;
            return smcr::fail(smcr::Errc::invalidArgument,
                              key + ": unknown parameter (known: " + (names.empty() ? "none" : names) + ")");
        }
    }
    QJsonObject out;
    for (const ParamSpec& spec : schema) {
        const QString key = QString::fromStdString(spec.name);
        QJsonValue value = params.value(key);
        if (value.isUndefined()) {
            if (spec.defaultValue.isUndefined()) return fieldError(spec, "is required");
            value = spec.defaultValue;
            if (value.isNull()) continue;  // optional, no default
        }
        auto checked = checkOne(spec, value);
        if (!checked) return smcr::fail(checked.error());
        out[key] = *checked;
    }
    return out;
}

}  // namespace smclab::workloads
