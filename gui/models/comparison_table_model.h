// The cover-letter table of one comparison section as a Qt model: a
// MsgSize column, then one column per settings column; every column but the
// baseline carries its percentage against the baseline.
#pragma once

#include <QAbstractTableModel>

#include "data/comparison.h"

namespace smclab::gui {

class ComparisonTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Roles beyond Qt's: the unrounded value and percentage of a cell.
    enum Role { valueRole = Qt::UserRole + 1, percentRole };

    explicit ComparisonTableModel(QObject* parent = nullptr);

    void setSection(const ComparisonSection& section);
    const ComparisonSection& section() const { return m_section; }
    void setBaselineColumn(int column);
    int baselineColumn() const { return m_baseline; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "2.392 MB/s (313.57%)": the layout of the cover letters.
    QString cellText(int dataColumn, int row) const;

private:
    QVariant foreground(int dataColumn, int row) const;

    ComparisonSection m_section;
    int m_baseline = 0;
};

}  // namespace smclab::gui
