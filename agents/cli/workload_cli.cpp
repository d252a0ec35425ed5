#include "workload_cli.h"

#include <csignal>
#include <cstdio>

#include "command.h"

namespace smclab::cli {

namespace {

std::atomic<bool> g_stop{false};

void onStopSignal(int) { g_stop.store(true); }

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
    if (e.host.size() >= 2 && e.host.front() == '[' && e.host.back() == ']') e.host = e.host.substr(1, e.host.size() - 2);
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
            if (cursor.takeFlag(option)) {
                params[QString::fromStdString(spec.name)] = true;
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

int usageError(const char* command, const std::string& message) {
    std::fprintf(stderr, "smclab %s: %s\n", command, message.c_str());
    return kExitUsage;
}

}  // namespace smclab::cli
