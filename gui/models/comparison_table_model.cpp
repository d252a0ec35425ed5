#include "models/comparison_table_model.h"

#include <cmath>

#include <QBrush>
#include <QColor>

namespace smclab::gui {

namespace {
// Changes smaller than this are noise on these VMs; they stay uncoloured.
constexpr double kNeutralPercent = 1.0;
}  // namespace

ComparisonTableModel::ComparisonTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ComparisonTableModel::setSection(const ComparisonSection& section) {
    beginResetModel();
    m_section = section;
    if (m_baseline >= m_section.columnCount()) m_baseline = 0;
    endResetModel();
}

void ComparisonTableModel::setBaselineColumn(int column) {
    if (column < 0 || column >= m_section.columnCount() || column == m_baseline) return;
    m_baseline = column;
    emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
    emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
}

int ComparisonTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_section.rowCount();
}

int ComparisonTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() || m_section.columns.isEmpty() ? 0 : m_section.columnCount() + 1;
}

QString ComparisonTableModel::cellText(int dataColumn, int row) const {
    const double x = m_section.value(dataColumn, row);
    if (std::isnan(x)) return QStringLiteral("-");
    // The unit is in the header: cells stay narrow enough for 1280 px.
    QString text = QString::number(x, 'f', 3);
    if (m_section.isFlagged(dataColumn, row)) text.prepend(QStringLiteral("\u2691 "));
    // The 95% interval of the median (statistics.h), not the spread.
    if (const auto interval = m_section.interval(dataColumn, row))
        text += QLatin1Char(' ') + intervalBrackets(*interval);
    if (m_section.busyRepetitions(dataColumn, row) > 0) text += QStringLiteral(" busy");
    // The report's marks (format_text.h): over TCP, or some fallback.
    if (m_section.overTcp(dataColumn, row)) {
        text += QStringLiteral(" [TCP]");
    } else if (m_section.fellBack(dataColumn, row)) {
        text += QStringLiteral(" [fb]");
    }
    if (dataColumn != m_baseline) {
        const double pct = m_section.percent(dataColumn, row, m_baseline);
        if (!std::isnan(pct)) text += QStringLiteral(" (%1)").arg(signedPercent(pct));
    }
    return text;
}

QVariant ComparisonTableModel::foreground(int dataColumn, int row) const {
    // A TCP figure in an SMC column: never green or red against its baseline.
    if (m_section.overTcp(dataColumn, row)) return QBrush(QColor(0xb0, 0x5a, 0x00));
    if (dataColumn == m_baseline) return {};
    const double pct = m_section.percent(dataColumn, row, m_baseline);
    if (std::isnan(pct) || std::abs(pct) < kNeutralPercent) return {};
    // A change whose interval contains 0 % is noise, whatever its size.
    if (const auto change = m_section.change(dataColumn, row, m_baseline);
        change && change->noise == report::Noise::within)
        return QBrush(QColor(0x77, 0x77, 0x77));
    // The printed sign is never flipped (a slower latency shows +x%); only the
    // colour knows that lower is better for latency.
    const bool better = m_section.lowerIsBetter ? pct < 0 : pct > 0;
    return QBrush(better ? QColor(0x1b, 0x7f, 0x3a) : QColor(0xb0, 0x22, 0x22));
}

QVariant ComparisonTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const int row = index.row();
    if (index.column() == 0) {
        switch (role) {
            case Qt::DisplayRole:
                return QString::number(m_section.sizesBytes[row]);
            case valueRole:
                return m_section.sizesBytes[row];
            case Qt::TextAlignmentRole:
                return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
            default:
                return {};
        }
    }
    const int column = index.column() - 1;
    switch (role) {
        case Qt::DisplayRole:
            return cellText(column, row);
        case valueRole:
            return m_section.value(column, row);
        case percentRole:
            return m_section.percent(column, row, m_baseline);
        case Qt::ForegroundRole:
            return foreground(column, row);
        case Qt::TextAlignmentRole:
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        case Qt::ToolTipRole: {
            const double x = m_section.value(column, row);
            if (std::isnan(x)) return tr("no run for this size");
            QString tip = tr("%1, %2 B: %3 %4")
                              .arg(m_section.columns[column])
                              .arg(m_section.sizesBytes[row])
                              .arg(x, 0, 'f', 6)
                              .arg(m_section.unit);
            if (const auto interval = m_section.interval(column, row))
                tip += QLatin1Char('\n') + intervalToolTip(*interval, m_section.repetitionCount(column, row));
            if (const int busy = m_section.busyRepetitions(column, row); busy > 0) {
                tip += tr("\n%1 of %2 runs ran on a busy host (other processes or the hypervisor took the CPUs)")
                           .arg(busy)
                           .arg(m_section.repetitionCount(column, row));
            }
            if (m_section.isFlagged(column, row))
                tip += tr("\nA run behind this value had settings changed live (see the run in the list).");
            if (const QString note = m_section.connectionNote(column, row); !note.isEmpty())
                tip += QLatin1Char('\n') + note;
            if (column != m_baseline && !std::isnan(m_section.percent(column, row, m_baseline))) {
                tip += tr("\nvs %1: %2")
                           .arg(m_section.columns[m_baseline])
                           .arg(signedPercent(m_section.percent(column, row, m_baseline)));
                if (const auto change = m_section.change(column, row, m_baseline); change && change->interval)
                    tip += QStringLiteral(" (%1)").arg(changeToolTip(*change));
            }
            return tip;
        }
        default:
            return {};
    }
}

QVariant ComparisonTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        if (section == 0) {
            if (m_section.unit.isEmpty()) return tr("MsgSize");
            // tcp_lat's latency_us is the mean one-way latency (qperf's): say which statistic.
            return m_section.metric == Metric::latency ? tr("MsgSize | %1, mean").arg(m_section.unit)
                                                       : tr("MsgSize | %1").arg(m_section.unit);
        }
        const int column = section - 1;
        if (column < 0 || column >= m_section.columnCount()) return {};
        return column == m_baseline ? tr("%1 (base)").arg(m_section.columns[column]) : m_section.columns[column];
    }
    if (role == Qt::ToolTipRole && section > 0) {
        return m_section.lowerIsBetter ? tr("lower is better") : tr("higher is better");
    }
    return {};
}

}  // namespace smclab::gui
