#include "prometheus_text.h"

#include <cmath>

namespace smclab::daemon {

namespace {

// HELP text escapes backslash and newline; label values also the double quote.
QString escaped(const QString& text, bool quote) {
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        if (c == QLatin1Char('\\'))
            out += QLatin1String("\\\\");
        else if (c == QLatin1Char('\n'))
            out += QLatin1String("\\n");
        else if (quote && c == QLatin1Char('"'))
            out += QLatin1String("\\\"");
        else
            out += c;
    }
    return out;
}

QString formatValue(double value) {
    if (std::isnan(value)) return QStringLiteral("NaN");
    if (std::isinf(value)) return value > 0 ? QStringLiteral("+Inf") : QStringLiteral("-Inf");
    // Integral counters print as integers (up to 2^53 they are exact in a double).
    if (value == std::floor(value) && std::fabs(value) < 9.0e15) return QString::number(static_cast<qint64>(value));
    return QString::number(value, 'g', 17);
}

}  // namespace

void MetricsPage::add(const QString& name, MetricType type, const QString& help, const MetricLabels& labels,
                      double value) {
    for (MetricFamily& family : m_families) {
        if (family.name == name) {
            family.samples.append({labels, value});
            return;
        }
    }
    m_families.append({name, type, help, {{labels, value}}});
}

QByteArray MetricsPage::toText() const {
    return formatExposition(m_families);
}

QByteArray formatExposition(const QList<MetricFamily>& families) {
    QString out;
    for (const MetricFamily& family : families) {
        out += QStringLiteral("# HELP %1 %2\n").arg(family.name, escaped(family.help, false));
        out += QStringLiteral("# TYPE %1 %2\n")
                   .arg(family.name,
                        family.type == MetricType::counter ? QStringLiteral("counter") : QStringLiteral("gauge"));
        for (const MetricSample& sample : family.samples) {
            out += family.name;
            if (!sample.labels.isEmpty()) {
                QStringList parts;
                for (const auto& [key, value] : sample.labels) {
                    parts << QStringLiteral("%1=\"%2\"").arg(key, escaped(value, true));
                }
                out += QLatin1Char('{') + parts.join(QLatin1Char(',')) + QLatin1Char('}');
            }
            out += QLatin1Char(' ') + formatValue(sample.value) + QLatin1Char('\n');
        }
    }
    return out.toUtf8();
}

}  // namespace smclab::daemon
