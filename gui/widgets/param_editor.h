// One side's parameters of a workload as form widgets, built from the
// schema the agent validates them against (workloads::Workload::schema):
// integers, sizes and durations as spin boxes with the schema's range,
// booleans as check boxes, strings with choices as combo boxes, others and
// string lists as line edits; each with the schema's help as its tooltip.
// values() gives back what was given (even at its default) and what differs
// from the schema's defaults, so a campaign file stays as the user wrote it. Parameters the campaign
// itself sets (duration_ms, warmup_ms, the workload's size parameter) are
// not shown.
#pragma once

#include <QJsonObject>
#include <QMap>
#include <QStringList>
#include <QWidget>

#include "workload.h"

class QFormLayout;
class QLabel;

namespace smclab::gui {

class ParamEditor : public QWidget {
    Q_OBJECT
public:
    explicit ParamEditor(QWidget* parent = nullptr);

    // Replaces the widgets; `values` fills them (unknown keys are kept as they are).
    void setSchema(const workloads::ParamSchema& schema, const QJsonObject& values, const QStringList& hidden);
    QJsonObject values() const;
    // The widget of parameter `name` (nullptr when not shown), for tests.
    QWidget* field(const QString& name) const { return m_fields.value(name); }
    QStringList fieldNames() const { return m_fields.keys(); }

signals:
    void changed();

private:
    QWidget* makeField(const workloads::ParamSpec& spec, const QJsonValue& value);
    QJsonValue fieldValue(const workloads::ParamSpec& spec) const;

    QFormLayout* m_form = nullptr;
    QLabel* m_empty = nullptr;
    workloads::ParamSchema m_schema;
    QJsonObject m_kept;   // values of parameters not shown
    QStringList m_given;  // parameters the values given to setSchema() named
    QMap<QString, QWidget*> m_fields;
};

}  // namespace smclab::gui
