// The Prometheus text exposition format (version 0.0.4): metric families
// with HELP and TYPE lines, samples with labels. Pure formatting, no I/O;
// the agent's /metrics page and its tests share it.
#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace smclab::daemon {

enum class MetricType { counter = 0, gauge };

using MetricLabels = QList<QPair<QString, QString>>;

struct MetricSample {
    MetricLabels labels;
    double value = 0;
};

struct MetricFamily {
    QString name;  // counters end in _total (the format's convention)
    MetricType type = MetricType::counter;
    QString help;
    QList<MetricSample> samples;
};

// Collects samples into families in first-seen order, so one family's
// samples stay together however many runs contribute to it (the format
// requires a family to appear once).
class MetricsPage {
public:
    void add(const QString& name, MetricType type, const QString& help, const MetricLabels& labels, double value);
    const QList<MetricFamily>& families() const { return m_families; }
    QByteArray toText() const;

private:
    QList<MetricFamily> m_families;
};

// "Content-Type" of the format, for the HTTP reply.
inline constexpr char kExpositionContentType[] = "text/plain; version=0.0.4; charset=utf-8";

QByteArray formatExposition(const QList<MetricFamily>& families);

}  // namespace smclab::daemon
