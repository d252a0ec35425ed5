#include "models/counter_table_model.h"

#include <limits>

#include <QLocale>

namespace smclab::gui {

CounterTableModel::CounterTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void CounterTableModel::clear() {
    beginResetModel();
    m_rows.clear();
    m_frozen = false;
    endResetModel();
}

void CounterTableModel::freeze() {
    m_frozen = true;
    if (!m_rows.isEmpty()) emit dataChanged(index(0, 2), index(rowCount() - 1, 2));
}

void CounterTableModel::update(const QJsonObject& counters, qint64 intervalMs) {
    m_frozen = false;
    const double seconds = intervalMs > 0 ? static_cast<double>(intervalMs) / 1000.0 : 0.0;
    bool sameRows = m_rows.size() == counters.size();
    for (int i = 0; sameRows && i < m_rows.size(); ++i) sameRows = counters.contains(m_rows[i].name);
    if (!sameRows) beginResetModel();
    QList<Row> rows;
    for (auto it = counters.begin(); it != counters.end(); ++it) {
        if (!it->isDouble()) continue;  // nested groups are flattened by the agent; skip anything else
        Row row;
        row.name = it.key();
        row.value = it->toDouble();
        for (const Row& old : m_rows) {
            if (old.name != row.name || seconds <= 0.0 || row.value < old.value) continue;
            row.perSec = (row.value - old.value) / seconds;
            row.hasRate = true;
        }
        rows.append(row);
    }
    m_rows = rows;
    if (!sameRows) {
        endResetModel();
    } else if (!m_rows.isEmpty()) {
        emit dataChanged(index(0, 1), index(rowCount() - 1, 2));
    }
}

double CounterTableModel::perSec(const QString& name) const {
    for (const Row& row : m_rows) {
        if (row.name == name) return row.hasRate && !m_frozen ? row.perSec : std::numeric_limits<double>::quiet_NaN();
    }
    return std::numeric_limits<double>::quiet_NaN();
}

double CounterTableModel::value(const QString& name) const {
    for (const Row& row : m_rows) {
        if (row.name == name) return row.value;
    }
    return 0.0;
}

int CounterTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CounterTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : 3;
}

QVariant CounterTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size()) return {};
    const Row& row = m_rows[index.row()];
    if (role == Qt::TextAlignmentRole && index.column() > 0) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole) return {};
    const QLocale locale;
    switch (index.column()) {
        case 0:
            return row.name;
        case 1:
            return locale.toString(row.value, 'f', 0);
        case 2:
            return m_frozen || !row.hasRate ? QStringLiteral("-")
                                            : locale.toString(row.perSec, 'f', row.perSec < 10.0 ? 1 : 0);
        default:
            return {};
    }
}

QVariant CounterTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case 0:
            return tr("Counter");
        case 1:
            return tr("Total");
        case 2:
            return tr("per s");
        default:
            return {};
    }
}

}  // namespace smclab::gui
