// The engine settings the run page can flip while traffic runs, with the
// values it offers. Names, kinds, bounds, choices, defaults and help come
// from the engine's settings table (<smcr/settings.h>); the panel adds only
// its labels, steps and units.
#pragma once

#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

namespace smclab::gui {

enum class SettingKind { invalid = 0, integer, choice, toggle };

struct LiveSetting {
    QString name;   // "autocorking_size", "lab.cq_mode"
    QString label;  // what the panel shows
    QString help;   // tooltip: what flipping it does
    SettingKind kind = SettingKind::invalid;
    QStringList choices;  // choice: the allowed values; toggle: {off, on}
    int minimum = 0;      // integer bounds
    int maximum = 0;
    int step = 1;
    QString unit;
    QJsonValue defaultValue;
};

const QList<LiveSetting>& liveSettings();
const LiveSetting* findLiveSetting(const QString& name);
// The kernel's net.smc sysctls a ksmc run can change live, under the names
// the agent's ksmc transport takes (the sysctl's last component). They
// change the whole host, as `sysctl -w` would; the agent restores them
// when the run ends.
const QList<LiveSetting>& kernelLiveSettings();
// `name` in `settings`, or null.
const LiveSetting* findSetting(const QList<LiveSetting>& settings, const QString& name);
// "autocorking_size=0": the marker label of a change.
QString settingChangeLabel(const QString& name, const QJsonValue& value);

}  // namespace smclab::gui
