// Engine and transport counters of the running run: name, cumulative value
// and the rate over the last interval, so the effect of a live setting
// change shows beside the plot (CDC messages, corked pushes, CQ wake-ups...).
#pragma once

#include <QAbstractTableModel>
#include <QJsonObject>
#include <QList>

namespace smclab::gui {

class CounterTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit CounterTableModel(QObject* parent = nullptr);

    // Cumulative counters at the end of an interval of `intervalMs`.
    void update(const QJsonObject& counters, qint64 intervalMs);
    void clear();
    // The run ended: totals stay, rates show "-" (no interval is running).
    void freeze();
    bool isFrozen() const { return m_frozen; }
    double value(const QString& name) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString name;
        double value = 0.0;
        double perSec = 0.0;
    };
    QList<Row> m_rows;
    bool m_frozen = false;
};

}  // namespace smclab::gui
