// Between the protocol's JSON settings and a transport's live-setting hook
// (Transport::applySetting takes text, as sysctls do).
#pragma once

#include <map>
#include <string>

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include "protocol/protocol_error.h"
#include "transport.h"

namespace smclab::daemon {

// true -> "1", 12 -> "12", 0.5 -> "0.5", "4096 87380 6291456" unchanged;
// an array becomes its elements joined by spaces (tcp_wmem style).
std::string settingText(const QJsonValue& value);

// The transport's settings as a JSON object name -> current text value.
QJsonObject settingsSnapshot(const transports::Transport& transport);

// Applies `settings` in order. Stops at the first failure and returns an
// error naming "settings.<name>" (unknown_setting for a name the transport
// does not list). `previous` collects the values in force before each
// change, so they can be put back when the run ends.
protocol::ProtocolError applySettings(transports::Transport& transport, const QJsonObject& settings,
                                      std::map<std::string, std::string>* previous, QJsonObject* applied);

}  // namespace smclab::daemon
