#include "workload_cli.h"

#include <csignal>
#include <cstdio>

#include <QJsonDocument>

#include "command.h"

namespace smclab::cli {

namespace {

std::atomic<bool> g_stop{false};

void onStopSignal(int) {
    g_stop.store(true);
}

std::string toOptionName(const std::string& param) {
    std::string out = "--";
    for (char c : param) out += c == '_' ? '-' : c;
    return out;
}

}  // namespace

std::optional<Endpoint> parseEndpoint(const std::string& text, bool allowZeroPort, std::string* error) {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) {
        *error = "expected ADDR:PORT, got '" + text + "'";
        return std::nullopt;
    }
    Endpoint e;
    e.host = text.substr(0, colon);
    if (e.host.size() >= 2 && e.host.front() == '[' && e.host.back() == ']')
        e.host = e.host.substr(1, e.host.size() - 2);
    auto port = parseInt(text.substr(colon + 1));
    if (!port || *port < (allowZeroPort ? 0 : 1) || *port > 65535) {
        *error = "bad port in '" + text + "'";
        return std::nullopt;
    }
    e.port = static_cast<uint16_t>(*port);
    return e;
}

bool takeTransportOption(ArgCursor& cursor, TransportChoice& choice) {
    if (auto name = cursor.takeValue("--transport")) {
        choice.name = *name;
        return true;
    }
    if (auto kv = cursor.takeValue("--transport-opt")) {
        const size_t eq = kv->find('=');
        if (eq == std::string::npos || eq == 0) {
            cursor.setError("--transport-opt expects KEY=VALUE, got '" + *kv + "'");
        } else {
            choice.options[kv->substr(0, eq)] = kv->substr(eq + 1);
        }
        return true;
    }
    return false;
}

bool takeEndpointOption(ArgCursor& cursor, const char* option, bool allowZeroPort, std::optional<Endpoint>& endpoint) {
    auto value = cursor.takeValue(option);
    if (!value) return !cursor.error().empty();  // a missing value consumed the option
    std::string error;
    endpoint = parseEndpoint(*value, allowZeroPort, &error);
    if (!endpoint) cursor.setError(std::string(option) + ": " + error);
    return true;
}

bool takeParamOption(ArgCursor& cursor, std::span<const ParamOption> options, QJsonObject& params) {
    for (const ParamOption& p : options) {
        auto text = cursor.takeValue(p.option);
        if (!text) {
            if (!cursor.error().empty()) return true;  // the option without its value
            continue;
        }
        std::optional<uint64_t> value;
        const char* complaint = "";
        switch (p.kind) {
            case ParamKind::count: {
                const std::optional<int64_t> n = parseInt(*text);
                if (n)
                    params[p.key] = static_cast<double>(*n);
                else
                    cursor.setError(std::string(p.option) + ": expects a number, got '" + *text + "'");
                return true;
            }
            case ParamKind::durationMs:
                value = parseDurationMs(*text);
                complaint = "bad time";
                break;
            case ParamKind::sizeBytes:
                value = parseSize(*text);
                complaint = "bad size";
                break;
            case ParamKind::invalid:
                cursor.setError(std::string(p.option) + ": not a parameter option");
                return true;
        }
        if (value)
            params[p.key] = static_cast<double>(*value);
        else
            cursor.setError(std::string(p.option) + ": " + complaint + " '" + *text + "'");
        return true;
    }
    return false;
}

smcr::Result<std::shared_ptr<transports::Transport>> openTransport(const TransportChoice& choice) {
    return transports::createTransport(choice.name, choice.options);
}

const std::atomic<bool>& installStopSignals() {
    std::signal(SIGINT, onStopSignal);
    std::signal(SIGTERM, onStopSignal);
    return g_stop;
}

bool takeSchemaOption(ArgCursor& cursor, const workloads::ParamSchema& schema, QJsonObject& params) {
    if (cursor.done()) return false;
    for (const workloads::ParamSpec& spec : schema) {
        const std::string option = toOptionName(spec.name);
        if (spec.type == workloads::ParamType::boolean) {
            // "--sendfile", "--sendfile on|off", "--sendfile=off", "--no-sendfile".
            if (!cursor.done() && cursor.peek().rfind(option + "=", 0) == 0) {
                params[QString::fromStdString(spec.name)] =
                    QString::fromStdString(cursor.next().substr(option.size() + 1));
                return true;
            }
            if (cursor.takeFlag(option)) {
                static const char* const kWords[] = {"on", "off", "true", "false"};
                QJsonValue value = true;
                for (const char* word : kWords) {
                    if (!cursor.done() && cursor.peek() == word) value = QString::fromStdString(cursor.next());
                }
                params[QString::fromStdString(spec.name)] = value;
                return true;
            }
            if (cursor.takeFlag("--no-" + option.substr(2))) {
                params[QString::fromStdString(spec.name)] = false;
                return true;
            }
            continue;
        }
        if (auto value = cursor.takeValue(option)) {
            const QString key = QString::fromStdString(spec.name);
            const QString text = QString::fromStdString(*value);
            if (spec.type == workloads::ParamType::integer) {
                bool ok = false;
                const qlonglong n = text.toLongLong(&ok);
                params[key] = ok ? QJsonValue(static_cast<double>(n)) : QJsonValue(text);
            } else {
                params[key] = text;
            }
            return true;
        }
        if (!cursor.error().empty()) return true;
    }
    return false;
}

std::string optionNamedError(const std::string& message) {
    const size_t colon = message.find(':');
    if (colon == std::string::npos || colon == 0) return message;
    const std::string field = message.substr(0, colon);
    for (char c : field) {
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return message;
    }
    return toOptionName(field) + message.substr(colon);
}

smcr::Result<QJsonObject> validateOptions(const workloads::ParamSchema& schema, const QJsonObject& params,
                                          std::span<const OptionAlias> aliases) {
    auto validated = workloads::validateParams(schema, params);
    if (validated) return validated;
    std::string message = optionNamedError(validated.error().message);
    for (const OptionAlias& alias : aliases) {
        const std::string prefix = std::string(alias.option) + ":";
        if (message.rfind(prefix, 0) == 0) {
            message = alias.shown + message.substr(prefix.size() - 1);
            break;
        }
    }
    return smcr::fail(validated.error().code, message);
}

std::shared_ptr<transports::Transport> openClientTransport(const TransportChoice& choice) {
    auto opened = openTransport(choice);
    if (!opened) {
        std::fprintf(stderr, "smclab load: %s\n", opened.error().message.c_str());
        return nullptr;
    }
    return *opened;
}

int runClientWorkload(const workloads::Workload& workload, const std::shared_ptr<transports::Transport>& transport,
                      const Endpoint& peer, const QJsonObject& params, bool json, const ToolText& toolText) {
    workloads::RunContext ctx;
    ctx.role = smcr::Side::client;
    ctx.params = params;
    ctx.transport = transport;
    ctx.host = peer.host;
    ctx.port = peer.port;
    ctx.stop = &installStopSignals();
    ctx.sampleIntervalMs = 0;
    auto result = workload.run(ctx);
    if (!result) {
        std::fprintf(stderr, "smclab load %s: %s\n", workload.name().c_str(),
                     optionNamedError(result.error().message).c_str());
        return kExitFailure;
    }
    if (json) {
        std::printf("%s\n", QJsonDocument(result->toJson()).toJson(QJsonDocument::Compact).constData());
    } else {
        std::printf("%s", toolText(*result).c_str());
    }
    std::fflush(stdout);
    return kExitOk;
}

int usageError(const char* command, const std::string& message) {
    std::fprintf(stderr, "smclab %s: %s\n", command, message.c_str());
    return kExitUsage;
}

}  // namespace smclab::cli
