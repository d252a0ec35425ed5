#include "smclab/report/campaign_diff.h"

#include <algorithm>

namespace smclab::report {

namespace {

QString signedPercent(double pct) {
    return (pct >= 0.0 ? QStringLiteral("+") : QString()) + QString::number(pct, 'f', 2) + QLatin1Char('%');
}

QString valueText(const Cell& cell) {
    return cell.value ? QString::number(*cell.value, 'f', 3) : QStringLiteral("-");
}

QString changeIntervalText(const CampaignDifference& d) {
    if (!d.change || !d.change->interval) return QString();
    const Interval& i = *d.change->interval;
    return QStringLiteral("[%1, %2] %3%")
        .arg(signedPercent(i.low), signedPercent(i.high), QString::number(i.confidencePct, 'f', 1));
}

QString verdictText(const CampaignDifference& d) {
    if (!d.change) return QString();
    if (d.change->noise == Noise::unknown) return QStringLiteral("no interval");
    if (d.change->noise == Noise::within) return QStringLiteral("within noise");
    return QStringLiteral("%1, outside noise").arg(QString::fromLatin1(noiseName(d.change->noise)));
}

QStringList fields(const CampaignDifference& d) {
    return {QString::number(d.msgSize),
            d.column,
            valueText(d.a),
            valueText(d.b),
            d.change ? signedPercent(d.change->pct) : QString(),
            changeIntervalText(d),
            verdictText(d)};
}

QString grid(const QList<QStringList>& lines) {
    const QList<bool> right{true, false, true, true, true, false, false};
    QList<qsizetype> widths(right.size(), 0);
    for (const QStringList& f : lines) {
        for (qsizetype i = 0; i < f.size(); ++i) widths[i] = std::max(widths[i], f[i].size());
    }
    QString out;
    for (const QStringList& f : lines) {
        QString line;
        for (qsizetype i = 0; i < f.size(); ++i) {
            if (i > 0) line += QStringLiteral("  ");
            line += right[i] ? f[i].rightJustified(widths[i]) : f[i].leftJustified(widths[i]);
        }
        while (line.endsWith(QLatin1Char(' '))) line.chop(1);
        out += line + QLatin1Char('\n');
    }
    return out;
}

}  // namespace

QList<CampaignDifference> campaignDifferences(const QList<ComparisonTable>& tables, const QString& prefixA,
                                              const QString& prefixB) {
    QList<CampaignDifference> out;
    for (const ComparisonTable& table : tables) {
        // Labels of A in column order, each with B's column of the same label.
        QList<std::pair<qsizetype, qsizetype>> pairs;
        QStringList labels;
        for (qsizetype c = 0; c < table.columns.size(); ++c) {
            if (!table.columns[c].startsWith(prefixA)) continue;
            const QString label = table.columns[c].mid(prefixA.size());
            const qsizetype other = table.columns.indexOf(prefixB + label);
            if (other < 0) continue;
            pairs.append({c, other});
            labels << label;
        }
        for (const Row& row : table.rows) {
            for (qsizetype p = 0; p < pairs.size(); ++p) {
                CampaignDifference d;
                d.table = table.title;
                d.unit = table.unit;
                d.msgSize = row.msgSize;
                d.column = labels[p];
                d.a = row.cells.value(pairs[p].first);
                d.b = row.cells.value(pairs[p].second);
                d.change = changeVsBaseline(d.b, d.a);
                if (!d.a.value && !d.b.value) continue;
                out.append(d);
            }
        }
    }
    return out;
}

QString formatDifferences(const QList<CampaignDifference>& differences, const QString& nameA, const QString& nameB) {
    if (differences.isEmpty()) return QString();
    QString out = QStringLiteral("==== Differences: %1 against %2 ====\n").arg(nameB, nameA);
    int higher = 0, lower = 0, within = 0, unknown = 0;
    QString table;
    QList<QStringList> lines;
    const auto flush = [&] {
        if (!lines.isEmpty()) out += grid(lines);
        lines.clear();
    };
    for (const CampaignDifference& d : differences) {
        if (d.table != table || lines.isEmpty()) {
            if (d.table != table) {
                flush();
                table = d.table;
                out +=
                    d.unit.isEmpty() ? d.table + QLatin1Char('\n') : QStringLiteral("%1 (%2)\n").arg(d.table, d.unit);
                lines.append({QStringLiteral("MsgSize"), QStringLiteral("Column"), nameA, nameB,
                              QStringLiteral("change"), QStringLiteral("interval of the change"),
                              QStringLiteral("verdict")});
            }
        }
        lines.append(fields(d));
        if (!d.change || d.change->noise == Noise::unknown)
            ++unknown;
        else if (d.change->noise == Noise::within)
            ++within;
        else if (d.change->noise == Noise::higher)
            ++higher;
        else
            ++lower;
    }
    flush();
    out += QStringLiteral("Outside the noise: %1 of %2 (%3 higher, %4 lower); within noise: %5; no interval: %6.\n")
               .arg(higher + lower)
               .arg(differences.size())
               .arg(higher)
               .arg(lower)
               .arg(within)
               .arg(unknown);
    return out;
}

DetailTable differencesDetail(const QList<CampaignDifference>& differences, const QString& nameA,
                              const QString& nameB) {
    DetailTable detail;
    detail.title = QStringLiteral("Differences: %1 against %2").arg(nameB, nameA);
    detail.columns = {nameA, nameB, QStringLiteral("change"), QStringLiteral("interval of the change"),
                      QStringLiteral("verdict")};
    for (const CampaignDifference& d : differences) {
        const QStringList f = fields(d);
        detail.rows.append({QStringLiteral("%1 %2 B %3").arg(d.table).arg(d.msgSize).arg(d.column), f.mid(2)});
    }
    return detail;
}

}  // namespace smclab::report
