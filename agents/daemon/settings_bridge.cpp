#include "settings_bridge.h"

#include <cmath>

#include <QJsonArray>
#include <QStringList>

namespace smclab::daemon {

std::string settingText(const QJsonValue& value) {
    if (value.isBool()) return value.toBool() ? "1" : "0";
    if (value.isDouble()) {
        const double number = value.toDouble();
        if (std::floor(number) == number && std::fabs(number) < 9.0e15) {
            return std::to_string(static_cast<long long>(number));
        }
        return QString::number(number, 'g', 17).toStdString();
    }
    if (value.isArray()) {
        QStringList parts;
        for (const QJsonValue& item : value.toArray()) parts.append(QString::fromStdString(settingText(item)));
        return parts.join(' ').toStdString();
    }
    return value.toString().toStdString();
}

QJsonObject settingsSnapshot(const transports::Transport& transport) {
    QJsonObject snapshot;
    for (const transports::SettingInfo& info : transport.settings()) {
        snapshot.insert(QString::fromStdString(info.name), QString::fromStdString(info.value));
    }
    return snapshot;
}

protocol::ProtocolError applySettings(transports::Transport& transport, const QJsonObject& settings,
                                      std::map<std::string, std::string>* previous, QJsonObject* applied) {
    std::map<std::string, std::string> known;
    QStringList names;
    for (const transports::SettingInfo& info : transport.settings()) {
        known[info.name] = info.value;
        names.append(QString::fromStdString(info.name));
    }
    for (auto it = settings.begin(); it != settings.end(); ++it) {
        const QString field = "settings." + it.key();
        const std::string name = it.key().toStdString();
        const auto current = known.find(name);
        if (current == known.end()) {
            return protocol::makeError(protocol::errc::kUnknownSetting, field,
                                       QString("%1: transport %2 has no setting '%3' (it has: %4)")
                                           .arg(field, QString::fromStdString(transport.name()), it.key(),
                                                names.isEmpty() ? QString("none") : names.join(", ")));
        }
        const std::string text = settingText(it.value());
        const smcr::Status status = transport.applySetting(name, text);
        if (!status.ok()) {
            QString message =
                QString("%1: cannot set to '%2': %3")
                    .arg(field, QString::fromStdString(text), QString::fromStdString(status.error().message));
            if (!applied->isEmpty()) {
                message += "; already applied: " + QStringList(applied->keys()).join(", ");
            }
            return protocol::makeError(protocol::errc::kBadField, field, message);
        }
        if (previous != nullptr && previous->find(name) == previous->end()) previous->emplace(name, current->second);
        applied->insert(it.key(), it.value());
    }
    return {};
}

}  // namespace smclab::daemon
