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

    // Cumulative counters at the end of an interval of `intervalMs`. A
    // counter below its last value belongs to a new run (each cell's
    // transport starts from zero): its rate shows "-" until its next
    // interval, never a negative rate.
    void update(const QJsonObject& counters, qint64 intervalMs);
    // The rate shown for `name`; NaN when there is none ("-").
    double perSec(const QString& name) const;
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
        bool hasRate = false;  // a previous value of the same run, over a known interval
    };
    QList<Row> m_rows;
    bool m_frozen = false;
};

}  // namespace smclab::gui
