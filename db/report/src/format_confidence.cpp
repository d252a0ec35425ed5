// The "==== Confidence ====" section of text output (format_text.h): per
// table a title line ("Bandwidth (MB/s), change against SMC-NoCork"), then
// one line per size and column with the fields
//
//   MsgSize  Column  n  median  interval of the median  change
//   interval of the change  verdict  notes
//
// e.g. "1  TCP  3  2.392  [2.300, 2.400] 75.0%  +313.84%
// [+290.12%, +320.55%] 90.0%  higher  busy 1/3" (the baseline's line ends
// after its own interval).
// Columns are as wide as their widest entry; the trailing note says how the
// intervals are computed and what a confidence under 95% means.
#include <algorithm>

#include "smclab/report/format_text.h"

namespace smclab::report {

namespace {

QString signedPercent(double pct) {
    return (pct >= 0.0 ? QStringLiteral("+") : QString()) + QString::number(pct, 'f', 2) + QLatin1Char('%');
}

QString changeIntervalText(const Interval& interval) {
    return QStringLiteral("[%1, %2] %3%")
        .arg(signedPercent(interval.low), signedPercent(interval.high),
             QString::number(interval.confidencePct, 'f', 1));
}

bool hasRepetitions(const ComparisonTable& table) {
    for (const Row& row : table.rows) {
        for (const Cell& cell : row.cells) {
            if (cell.samples.size() >= 2 || cell.fellBack()) return true;
        }
    }
    return false;
}

QString verdictText(const Change& change) {
    if (change.noise == Noise::unknown) return QString();
    return QString::fromLatin1(noiseName(change.noise));
}

// Left-justified fields, except the numeric ones that are right-justified.
QString renderGrid(const QList<QStringList>& lines, const QList<bool>& rightAligned) {
    QList<qsizetype> widths(rightAligned.size(), 0);
    for (const QStringList& fields : lines) {
        for (qsizetype i = 0; i < fields.size(); ++i) widths[i] = std::max(widths[i], fields[i].size());
    }
    QString out;
    for (const QStringList& fields : lines) {
        QString line;
        for (qsizetype i = 0; i < fields.size(); ++i) {
            if (i > 0) line += QStringLiteral("  ");
            line += rightAligned[i] ? fields[i].rightJustified(widths[i]) : fields[i].leftJustified(widths[i]);
        }
        while (line.endsWith(QLatin1Char(' '))) line.chop(1);
        out += line + QLatin1Char('\n');
    }
    return out;
}

QString tableSection(const ComparisonTable& table) {
    const QString unit = table.unit.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(table.unit);
    QString out = QStringLiteral("%1%2, change against %3\n").arg(table.title, unit, table.columns.value(0));
    QList<QStringList> lines{{QStringLiteral("MsgSize"), QStringLiteral("Column"), QStringLiteral("n"),
                              QStringLiteral("median"), QStringLiteral("interval of the median"),
                              QStringLiteral("change"), QStringLiteral("interval of the change"),
                              QStringLiteral("verdict"), QStringLiteral("notes")}};
    for (const Row& row : table.rows) {
        const Cell base = row.cells.value(0);
        for (qsizetype c = 0; c < table.columns.size(); ++c) {
            const Cell cell = row.cells.value(c);
            QStringList fields{QString::number(row.msgSize), table.columns[c], QString::number(cell.repetitions)};
            fields << (cell.value ? QString::number(*cell.value, 'f', 3) : QStringLiteral("-"));
            fields << (cell.interval ? intervalText(*cell.interval, 3) : QString());
            const std::optional<Change> change = c == 0 ? std::nullopt : changeVsBaseline(cell, base);
            fields << (change ? signedPercent(change->pct) : QString());
            fields << (change && change->interval ? changeIntervalText(*change->interval) : QString());
            fields << (change ? verdictText(*change) : QString());
            QStringList notes;
            if (cell.busyRepetitions > 0)
                notes << QStringLiteral("busy %1/%2").arg(cell.busyRepetitions).arg(cell.repetitions);
            if (cell.liveChangedRepetitions > 0)
                notes << QStringLiteral("live change %1/%2").arg(cell.liveChangedRepetitions).arg(cell.repetitions);
            if (cell.overTcp()) {
                notes << QStringLiteral("over TCP %1/%2 (%3), not compared")
                             .arg(cell.tcpRepetitions)
                             .arg(cell.repetitions)
                             .arg(cell.fallbackReasons);
            } else if (cell.fellBack()) {
                notes << QStringLiteral("fell back %1/%2 (%3)")
                             .arg(cell.fallbackRepetitions)
                             .arg(cell.repetitions)
                             .arg(cell.fallbackReasons);
            }
            fields << notes.join(QStringLiteral(", "));
            lines.append(fields);
        }
    }
    out += renderGrid(lines, {true, false, true, true, false, true, false, false, false});
    return out;
}

// Said only when a cell is marked, so the letter-only output stays as it was.
QString connectionNote(const QList<ComparisonTable>& tables) {
    for (const ComparisonTable& table : tables) {
        for (const Row& row : table.rows) {
            for (const Cell& cell : row.cells) {
                if (cell.fellBack())
                    return QStringLiteral(
                        "\"fell back\": repetitions in which some connection ran over TCP instead of SMC-R, with "
                        "the\n"
                        "reasons. \"over TCP\": repetitions whose data went over TCP (under 90% of the bytes over "
                        "RDMA,\n"
                        "or no SMC-R connection): the figure is TCP's, so it is not compared.\n");
            }
        }
    }
    return QString();
}

}  // namespace

QString formatConfidence(const QList<ComparisonTable>& tables) {
    QString out;
    for (const ComparisonTable& table : tables) {
        if (hasRepetitions(table)) out += tableSection(table);
    }
    if (out.isEmpty()) return out;
    return QStringLiteral("==== Confidence ====\n") + out +
           QStringLiteral(
               "Values are medians of the repetitions. Intervals are distribution-free: the median's from "
               "order\n"
               "statistics (binomial), the change's from the pairwise ratios (Mann-Whitney); each states its "
               "own\n"
               "confidence, below 95% when the repetitions are too few (95% needs 6 for a median, 4 a side "
               "for a\n"
               "change). \"within noise\": the change's interval contains 0%. \"busy\": repetitions that ran "
               "on a\n"
               "busy host. \"live change\": repetitions during which a setting was changed live (their values\n"
               "mix configurations).\n") +
           connectionNote(tables);
}

QString formatTextWithConfidence(const QList<ComparisonTable>& tables) {
    return formatText(tables) + formatConfidence(tables);
}

}  // namespace smclab::report
