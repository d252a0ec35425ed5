// The live settings of the run page: one editor per LiveSetting. A change
// made by the user is emitted once (settingChanged); setValue() from the
// program is silent, so an agent's acknowledgement does not echo back.
#pragma once

#include <QHash>
#include <QJsonObject>
#include <QWidget>

class QLabel;

namespace smclab::gui {

struct LiveSetting;

class SettingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit SettingsPanel(QWidget* parent = nullptr);

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

    QHash<QString, QWidget*> m_editors;
    QLabel* m_reasonLabel = nullptr;
    QString m_reason;
    bool m_silent = false;
};

}  // namespace smclab::gui
