#include "widgets/param_editor.h"

#include <limits>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

namespace smclab::gui {

namespace {

using workloads::ParamType;

QString suffixFor(ParamType type) {
    if (type == ParamType::size) return QStringLiteral(" B");
    if (type == ParamType::durationMs) return QStringLiteral(" ms");
    return {};
}

bool isNumber(ParamType type) {
    return type == ParamType::integer || type == ParamType::size || type == ParamType::durationMs;
}

QString listText(const QJsonValue& value) {
    QStringList words;
    for (const QJsonValue& v : value.toArray()) words << v.toString();
    return value.isArray() ? words.join(QLatin1Char(',')) : value.toString();
}

}  // namespace

ParamEditor::ParamEditor(QWidget* parent) : QWidget(parent) {
    m_form = new QFormLayout(this);
    m_form->setContentsMargins(0, 0, 0, 0);
    m_empty = new QLabel(tr("(none besides the campaign's size and duration)"), this);
    m_form->addRow(m_empty);
}

void ParamEditor::setSchema(const workloads::ParamSchema& schema, const QJsonObject& values,
                            const QStringList& hidden) {
    for (QWidget* w : std::as_const(m_fields)) m_form->removeRow(w);
    m_fields.clear();
    m_schema.clear();
    m_kept = values;
    m_given = values.keys();
    for (const workloads::ParamSpec& spec : schema) {
        const QString name = QString::fromStdString(spec.name);
        if (hidden.contains(name)) continue;
        m_schema.push_back(spec);
        QWidget* field = makeField(spec, values.contains(name) ? values.value(name) : spec.defaultValue);
        field->setObjectName(QStringLiteral("param_") + name);
        field->setToolTip(QString::fromStdString(spec.help));
        m_fields.insert(name, field);
        m_form->addRow(name + QLatin1Char(':'), field);
        m_kept.remove(name);
    }
    m_empty->setVisible(m_fields.isEmpty());
}

QWidget* ParamEditor::makeField(const workloads::ParamSpec& spec, const QJsonValue& value) {
    if (isNumber(spec.type)) {
        constexpr int64_t kIntMax = std::numeric_limits<int>::max();
        if (spec.minValue >= -kIntMax && spec.maxValue <= kIntMax) {
            auto* box = new QSpinBox(this);
            box->setRange(static_cast<int>(spec.minValue), static_cast<int>(spec.maxValue));
            box->setSuffix(suffixFor(spec.type));
            box->setValue(static_cast<int>(value.toInteger(spec.minValue)));
            connect(box, &QSpinBox::valueChanged, this, &ParamEditor::changed);
            return box;
        }
        // Wider than an int (redis -r): whole numbers in a double spin box, exact to 2^53.
        auto* box = new QDoubleSpinBox(this);
        box->setDecimals(0);
        box->setRange(static_cast<double>(spec.minValue), static_cast<double>(spec.maxValue));
        box->setSuffix(suffixFor(spec.type));
        box->setValue(value.toDouble(static_cast<double>(spec.minValue)));
        connect(box, &QDoubleSpinBox::valueChanged, this, &ParamEditor::changed);
        return box;
    }
    if (spec.type == ParamType::boolean) {
        auto* box = new QCheckBox(this);
        box->setChecked(value.toBool());
        connect(box, &QCheckBox::toggled, this, &ParamEditor::changed);
        return box;
    }
    if (spec.type == ParamType::string && !spec.choices.empty()) {
        auto* box = new QComboBox(this);
        for (const std::string& choice : spec.choices) box->addItem(QString::fromStdString(choice));
        box->setCurrentText(value.toString());
        connect(box, &QComboBox::currentTextChanged, this, &ParamEditor::changed);
        return box;
    }
    auto* edit = new QLineEdit(spec.type == ParamType::stringList ? listText(value) : value.toString(), this);
    if (!spec.choices.empty()) {
        QStringList choices;
        for (const std::string& choice : spec.choices) choices << QString::fromStdString(choice);
        edit->setPlaceholderText(choices.join(QLatin1Char(',')));
    }
    connect(edit, &QLineEdit::textChanged, this, &ParamEditor::changed);
    return edit;
}

QJsonValue ParamEditor::fieldValue(const workloads::ParamSpec& spec) const {
    QWidget* field = m_fields.value(QString::fromStdString(spec.name));
    if (auto* box = qobject_cast<QSpinBox*>(field)) return box->value();
    if (auto* box = qobject_cast<QDoubleSpinBox*>(field)) return static_cast<qint64>(box->value());
    if (auto* box = qobject_cast<QCheckBox*>(field)) return box->isChecked();
    if (auto* box = qobject_cast<QComboBox*>(field)) return box->currentText();
    auto* edit = qobject_cast<QLineEdit*>(field);
    const QString text = edit ? edit->text().trimmed() : QString();
    if (spec.type != ParamType::stringList) return text;
    QJsonArray list;
    for (const QString& word : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) list.append(word.trimmed());
    return list;
}

QJsonObject ParamEditor::values() const {
    QJsonObject out = m_kept;
    for (const workloads::ParamSpec& spec : m_schema) {
        const QJsonValue value = fieldValue(spec);
        const QString name = QString::fromStdString(spec.name);
        if (value != spec.defaultValue || m_given.contains(name)) out.insert(name, value);
    }
    return out;
}

}  // namespace smclab::gui
