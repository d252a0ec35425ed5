#include "widgets/settings_panel.h"

#include <utility>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

namespace smclab::gui {

SettingsPanel::SettingsPanel(QList<LiveSetting> settings, QWidget* parent)
    : QWidget(parent), m_settings(std::move(settings)) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_reasonLabel = new QLabel(this);
    m_reasonLabel->setObjectName(QStringLiteral("settingsUnavailableReason"));
    m_reasonLabel->setWordWrap(true);
    m_reasonLabel->setStyleSheet(QStringLiteral("QLabel { color: #7a5a00; }"));
    m_reasonLabel->hide();
    form->addRow(m_reasonLabel);
    for (const LiveSetting& setting : std::as_const(m_settings)) {
        QWidget* editor = makeEditor(setting);
        editor->setToolTip(QStringLiteral("%1\n%2").arg(setting.name, setting.help));
        editor->setObjectName(setting.name);
        m_editors.insert(setting.name, editor);
        auto* label = new QLabel(setting.label, this);
        label->setToolTip(editor->toolTip());
        form->addRow(label, editor);
        setValue(setting.name, setting.defaultValue);
    }
}

QWidget* SettingsPanel::makeEditor(const LiveSetting& setting) {
    const QString name = setting.name;
    switch (setting.kind) {
        case SettingKind::integer: {
            auto* spin = new QSpinBox(this);
            spin->setRange(setting.minimum, setting.maximum);
            spin->setSingleStep(setting.step);
            spin->setSuffix(setting.unit);
            spin->setKeyboardTracking(false);  // one change per edit, not per keystroke
            connect(spin, &QSpinBox::valueChanged, this, [this, name](int value) {
                if (!m_silent) emit settingChanged(name, QJsonValue(value));
            });
            return spin;
        }
        case SettingKind::choice: {
            auto* combo = new QComboBox(this);
            combo->addItems(setting.choices);
            connect(combo, &QComboBox::currentTextChanged, this, [this, name](const QString& value) {
                if (!m_silent) emit settingChanged(name, QJsonValue(value));
            });
            return combo;
        }
        case SettingKind::toggle: {
            auto* check = new QCheckBox(tr("on"), this);
            const QStringList choices = setting.choices;
            connect(check, &QCheckBox::toggled, this, [this, name, choices](bool on) {
                if (!m_silent) emit settingChanged(name, QJsonValue(choices.value(on ? 1 : 0)));
            });
            return check;
        }
        case SettingKind::invalid:
            break;
    }
    return new QLabel(tr("?"), this);
}

void SettingsPanel::setValue(const QString& name, const QJsonValue& value) {
    QWidget* widget = m_editors.value(name);
    const LiveSetting* setting = findSetting(m_settings, name);
    if (widget == nullptr || setting == nullptr) return;
    m_silent = true;
    if (auto* spin = qobject_cast<QSpinBox*>(widget)) {
        spin->setValue(value.toInt());
    } else if (auto* combo = qobject_cast<QComboBox*>(widget)) {
        combo->setCurrentText(value.toString());
    } else if (auto* check = qobject_cast<QCheckBox*>(widget)) {
        // The engine reports toggles as 1/0, the presets send on/off.
        const QString text = value.isDouble() ? QString::number(value.toInteger()) : value.toString();
        check->setChecked(value.isBool() ? value.toBool()
                                         : text == setting->choices.value(1) || text == QLatin1String("1") ||
                                               text == QLatin1String("true"));
    }
    m_silent = false;
}

void SettingsPanel::setUnavailableReason(const QString& reason) {
    m_reason = reason;
    m_reasonLabel->setText(reason);
    m_reasonLabel->setVisible(!reason.isEmpty());
    for (QWidget* editor : std::as_const(m_editors)) editor->setEnabled(reason.isEmpty());
}

QJsonObject SettingsPanel::values() const {
    QJsonObject out;
    for (const LiveSetting& setting : m_settings) {
        QWidget* widget = m_editors.value(setting.name);
        if (auto* spin = qobject_cast<QSpinBox*>(widget)) {
            out.insert(setting.name, spin->value());
        } else if (auto* combo = qobject_cast<QComboBox*>(widget)) {
            out.insert(setting.name, combo->currentText());
        } else if (auto* check = qobject_cast<QCheckBox*>(widget)) {
            out.insert(setting.name, setting.choices.value(check->isChecked() ? 1 : 0));
        }
    }
    return out;
}

}  // namespace smclab::gui
