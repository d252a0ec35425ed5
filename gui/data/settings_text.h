// Settings of a campaign column as one editable line:
// "autocorking_size=0, lab.cq_mode=arm_first". Integers stay integers,
// true/false become booleans, anything else is a string.
#pragma once

#include <optional>

#include <QJsonObject>
#include <QString>

namespace smclab::gui {

QString settingsToText(const QJsonObject& settings);
// nullopt with *error naming the bad entry.
std::optional<QJsonObject> settingsFromText(const QString& text, QString* error);

}  // namespace smclab::gui
