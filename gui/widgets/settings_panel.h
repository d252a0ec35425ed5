// The live settings of the run page: one editor per LiveSetting of one set. A change
// made by the user is emitted once (settingChanged); setValue() from the
// program is silent, so an agent's acknowledgement does not echo back.
#pragma once

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QWidget>

#include "data/live_setting.h"

class QLabel;

namespace smclab::gui {

class SettingsPanel : public QWidget {
    Q_OBJECT
public:
    // One editor per entry of `settings` (liveSettings(): the engine's; kernelLiveSettings(): ksmc's sysctls).
    explicit SettingsPanel(QList<LiveSetting> settings, QWidget* parent = nullptr);

    const QList<LiveSetting>& settings() const { return m_settings; }

    QJsonObject values() const;
    void setValue(const QString& name, const QJsonValue& value);
    // The editor of one setting (tests drive it like a user would).
    QWidget* editor(const QString& name) const { return m_editors.value(name); }

    // Greys the editors out with `reason` shown above them (a run whose
    // transport these settings do not apply to); an empty reason enables them.
    void setUnavailableReason(const QString& reason);
    QString unavailableReason() const { return m_reason; }

signals:
    void settingChanged(const QString& name, const QJsonValue& value);

private:
    QWidget* makeEditor(const LiveSetting& setting);

    QList<LiveSetting> m_settings;
    QHash<QString, QWidget*> m_editors;
    QLabel* m_reasonLabel = nullptr;
    QString m_reason;
    bool m_silent = false;
};

}  // namespace smclab::gui
