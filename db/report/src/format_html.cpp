#include "smclab/report/format_text.h"
#include "smclab/report/formats.h"
#include "svg_plot.h"
#include "xml_escape.h"

namespace smclab::report {

namespace {

// Kept to plain ASCII selectors and no '<' or '&' so the whole file stays
// well-formed XML (tests parse it with QXmlStreamReader).
const char* const kStyle = R"css(
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
p.generated { color: #666; margin-top: 0; }
table { border-collapse: collapse; margin: 0.8em 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; }
td.name, th.name { text-align: left; }
td.missing { color: #aaa; }
span.pct { color: #555; margin-left: 0.4em; }
span.better { color: #0a7a2f; }
span.worse { color: #b3261e; }
span.spread { color: #777; font-size: 0.85em; margin-left: 0.3em; }
span.interval { color: #777; font-size: 0.8em; display: block; }
span.noise { color: #999; font-style: italic; }
span.busy { color: #b36b00; font-size: 0.8em; display: block; }
span.fallback { color: #b3261e; font-size: 0.8em; font-weight: bold; display: block; }
td.overtcp { background: #fbe9e7; }
svg.plot .errorbar { fill: none; stroke-width: 1; }
pre.letter { background: #f8f8f8; border: 1px solid #e3e3e3; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
svg.plot { display: block; margin: 0.5em 0; }
svg.plot .frame { fill: none; stroke: #888; }
svg.plot .grid { stroke: #e6e6e6; }
svg.plot .xtick { font-size: 10px; text-anchor: middle; fill: #444; }
svg.plot .ytick { font-size: 10px; text-anchor: end; fill: #444; }
svg.plot .xlabel, svg.plot .ylabel { font-size: 12px; text-anchor: middle; fill: #222; }
svg.plot .ptitle { font-size: 13px; font-weight: bold; text-anchor: middle; }
svg.plot .series { fill: none; stroke-width: 2; }
svg.plot .legendline { stroke-width: 3; }
svg.plot .legend { font-size: 12px; fill: #222; }
dl.prov { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dl.prov dt { font-weight: bold; }
dl.prov dd { margin: 0; font-family: monospace; }
)css";

QString comparisonHtml(const ComparisonTable& table) {
    QString out = QStringLiteral("<section class=\"comparison\">\n<h2>%1%2</h2>\n")
                      .arg(xmlEscape(table.title),
                           table.unit.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(xmlEscape(table.unit)));
    out += svgPlot(table);
    out += QStringLiteral("<table class=\"comparison\">\n<tr><th>MsgSize</th>");
    for (qsizetype c = 0; c < table.columns.size(); ++c) {
        out += QStringLiteral("<th><span style=\"color: %1\">&#9632;</span> %2%3</th>")
                   .arg(seriesColour(table.colourIndex(c)), xmlEscape(table.columns[c]),
                        c == 0 ? QStringLiteral(" (baseline)") : QString());
    }
    out += QStringLiteral("</tr>\n");
    for (const Row& row : table.rows) {
        out += QStringLiteral("<tr><td>%1</td>").arg(row.msgSize);
        const Cell base = row.cells.value(0);
        for (qsizetype c = 0; c < table.columns.size(); ++c) {
            const Cell cell = c < row.cells.size() ? row.cells[c] : Cell{};
            if (!cell.value) {
                out += QStringLiteral("<td class=\"missing\">-</td>");
                continue;
            }
            out += (cell.overTcp() ? QStringLiteral("<td class=\"overtcp\">") : QStringLiteral("<td>")) +
                   QString::number(*cell.value, 'f', 3);
            if (cell.repetitions > 1) {
                out += QStringLiteral("<span class=\"spread\">± %1</span>").arg(QString::number(cell.spread, 'f', 3));
            }
            if (c > 0) {
                if (const auto pct = percentVsBaseline(cell, base)) {
                    // Colour by direction; the sign stays as computed (letter rule).
                    const bool better = table.lowerIsBetter ? *pct < 0 : *pct > 0;
                    const QString kind =
                        *pct == 0 ? QString() : (better ? QStringLiteral(" better") : QStringLiteral(" worse"));
                    const auto change = changeVsBaseline(cell, row.cells[0]);
                    // A change inside the noise is not coloured as better or worse.
                    const QString shown = change && change->noise == Noise::within ? QStringLiteral(" noise") : kind;
                    out += QStringLiteral("<span class=\"pct%1\">(%2%3%)</span>")
                               .arg(shown, *pct > 0 ? QStringLiteral("+") : QString(), QString::number(*pct, 'f', 2));
                    if (change && change->interval) {
                        out += QStringLiteral("<span class=\"interval\">change %1%2</span>")
                                   .arg(xmlEscape(intervalText(*change->interval, 2)),
                                        change->noise == Noise::within ? QStringLiteral(", within noise") : QString());
                    }
                }
            }
            if (cell.interval) {
                out += QStringLiteral("<span class=\"interval\">median %1</span>")
                           .arg(xmlEscape(intervalText(*cell.interval, 3)));
            }
            if (cell.busyRepetitions > 0) {
                out += QStringLiteral("<span class=\"busy\">busy host: %1 of %2 runs</span>")
                           .arg(cell.busyRepetitions)
                           .arg(cell.repetitions);
            }
            if (cell.liveChangedRepetitions > 0) {
                out += QStringLiteral("<span class=\"busy\">settings changed live: %1 of %2 runs</span>")
                           .arg(cell.liveChangedRepetitions)
                           .arg(cell.repetitions);
            }
            if (cell.overTcp()) {
                out += QStringLiteral("<span class=\"fallback\">over TCP, not SMC-R: %1 of %2 runs (%3)</span>")
                           .arg(cell.tcpRepetitions)
                           .arg(cell.repetitions)
                           .arg(xmlEscape(cell.fallbackReasons));
            } else if (cell.fellBack()) {
                out += QStringLiteral("<span class=\"fallback\">fell back: %1 of %2 runs (%3)</span>")
                           .arg(cell.fallbackRepetitions)
                           .arg(cell.repetitions)
                           .arg(xmlEscape(cell.fallbackReasons));
            }
            out += QStringLiteral("</td>");
        }
        out += QStringLiteral("</tr>\n");
    }
    out += QStringLiteral("</table>\n");
    out += QStringLiteral("<pre class=\"letter\">%1</pre>\n").arg(xmlEscape(formatTextTable(table)));
    if (const QString confidence = formatConfidence({table}); !confidence.isEmpty()) {
        out += QStringLiteral("<pre class=\"letter confidence\">%1</pre>\n").arg(xmlEscape(confidence));
    }
    out += QStringLiteral("</section>\n");
    return out;
}

// What each column ran over (ComparisonTable::wires), once per column.
QString wireHtml(const QList<ComparisonTable>& tables) {
    QStringList seen;
    QString out;
    for (const ComparisonTable& table : tables) {
        for (qsizetype c = 0; c < table.columns.size(); ++c) {
            if (table.wires.value(c).isEmpty() || seen.contains(table.columns[c])) continue;
            seen << table.columns[c];
            out +=
                QStringLiteral("<dt>%1</dt><dd>%2</dd>\n").arg(xmlEscape(table.columns[c]), xmlEscape(table.wires[c]));
        }
    }
    if (out.isEmpty()) return out;
    return QStringLiteral("<section class=\"wire\">\n<h2>Wire</h2>\n<dl class=\"prov\">\n") + out +
           QStringLiteral("</dl>\n</section>\n");
}

QString detailHtml(const DetailTable& detail) {
    QString out = QStringLiteral("<h2>%1</h2>\n<table class=\"detail\">\n<tr><th class=\"name\">name</th>")
                      .arg(xmlEscape(detail.title));
    for (const QString& column : detail.columns) out += QStringLiteral("<th>%1</th>").arg(xmlEscape(column));
    out += QStringLiteral("</tr>\n");
    for (const DetailRow& row : detail.rows) {
        out += QStringLiteral("<tr><td class=\"name\">%1</td>").arg(xmlEscape(row.name));
        for (qsizetype c = 0; c < detail.columns.size(); ++c) {
            const QString value = c < row.values.size() ? row.values[c] : QString();
            out += value.isEmpty() ? QStringLiteral("<td class=\"missing\">-</td>")
                                   : QStringLiteral("<td>%1</td>").arg(xmlEscape(value));
        }
        out += QStringLiteral("</tr>\n");
    }
    return out + QStringLiteral("</table>\n");
}

}  // namespace

QString formatHtml(const ReportDocument& document) {
    QString out = QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    out += QStringLiteral("<title>%1</title>\n<style>%2</style>\n</head>\n<body>\n")
               .arg(xmlEscape(document.title), QString::fromLatin1(kStyle));
    out += QStringLiteral("<h1>%1</h1>\n").arg(xmlEscape(document.title));
    if (!document.generatedAt.isEmpty()) {
        out +=
            QStringLiteral("<p class=\"generated\">Generated %1 by smclab</p>\n").arg(xmlEscape(document.generatedAt));
    }
    for (const ComparisonTable& table : document.tables) out += comparisonHtml(table);
    out += wireHtml(document.tables);
    for (const DetailTable& detail : document.details) out += detailHtml(detail);
    if (!document.provenance.isEmpty()) {
        out += QStringLiteral("<section class=\"provenance\">\n");
        for (const ProvenanceSection& section : document.provenance) {
            out += QStringLiteral("<h2>%1</h2>\n<dl class=\"prov\">\n").arg(xmlEscape(section.title));
            for (const KeyValue& entry : section.entries) {
                out += QStringLiteral("<dt>%1</dt><dd>%2</dd>\n").arg(xmlEscape(entry.key), xmlEscape(entry.value));
            }
            out += QStringLiteral("</dl>\n");
        }
        out += QStringLiteral("</section>\n");
    }
    out += QStringLiteral("</body>\n</html>\n");
    return out;
}

}  // namespace smclab::report
