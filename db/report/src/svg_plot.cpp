#include "svg_plot.h"

#include <algorithm>
#include <cmath>

#include "xml_escape.h"

namespace smclab::report {

namespace {

constexpr double kMarginLeft = 78;
constexpr double kMarginRight = 170;   // room for the legend; grows with long labels
constexpr double kLegendCharPx = 7.2;  // 12px sans-serif, a generous average
constexpr double kMarginTop = 34;
constexpr double kMarginBottom = 52;

QString num(double v) {
    return QString::number(v, 'f', 1);
}

// 1, 2, 2.5, 5 x 10^k: axis steps a reader can add up.
double niceStep(double range, int targetTicks) {
    if (range <= 0) return 1.0;
    const double raw = range / targetTicks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        if (raw <= m * magnitude) return m * magnitude;
    }
    return 10.0 * magnitude;
}

QString tickLabel(double value, double step) {
    const int decimals = step >= 1.0 ? 0 : static_cast<int>(std::ceil(-std::log10(step)));
    return QString::number(value, 'f', std::min(decimals, 6));
}

}  // namespace

QString sizeLabel(qint64 bytes) {
    if (bytes >= (1LL << 30) && bytes % (1LL << 30) == 0) return QString::number(bytes >> 30) + QLatin1Char('G');
    if (bytes >= (1LL << 20) && bytes % (1LL << 20) == 0) return QString::number(bytes >> 20) + QLatin1Char('M');
    if (bytes >= 1024 && bytes % 1024 == 0) return QString::number(bytes >> 10) + QLatin1Char('K');
    return QString::number(bytes);
}

QString svgPlot(const ComparisonTable& table, PlotSize size) {
    qsizetype longest = 0;
    for (qsizetype c = 0; c < table.columns.size(); ++c) {
        longest = std::max(longest, table.columns[c].size() + (c == 0 ? 11 : 0));  // " (baseline)"
    }
    const double marginRight = std::max(kMarginRight, 44 + kLegendCharPx * static_cast<double>(longest));
    const double plotW = size.widthPx - kMarginLeft - kMarginRight;
    const double width = kMarginLeft + plotW + marginRight;
    const double height = size.heightPx;
    const double plotH = height - kMarginTop - kMarginBottom;

    double xMin = 0, xMax = 1, yMax = 0;
    bool first = true;
    for (const Row& row : table.rows) {
        if (row.msgSize <= 0) continue;
        const double lx = std::log2(static_cast<double>(row.msgSize));
        xMin = first ? lx : std::min(xMin, lx);
        xMax = first ? lx : std::max(xMax, lx);
        first = false;
        for (const Cell& cell : row.cells) {
            if (cell.value) yMax = std::max(yMax, *cell.value + cell.spread);
            if (cell.interval) yMax = std::max(yMax, cell.interval->high);
        }
    }
    if (xMax - xMin < 1.0) {
        xMin -= 0.5;
        xMax += 0.5;
    }
    const double yStep = niceStep(yMax > 0 ? yMax : 1.0, 5);
    const double yTop = std::max(yStep, std::ceil(yMax / yStep) * yStep);
    auto px = [&](double lx) { return kMarginLeft + (lx - xMin) / (xMax - xMin) * plotW; };
    auto py = [&](double v) { return kMarginTop + plotH - v / yTop * plotH; };

    const QString yTitle = table.unit.isEmpty() ? table.title : QStringLiteral("%1 (%2)").arg(table.title, table.unit);
    QString svg = QStringLiteral(
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%1\" height=\"%2\" "
                      "viewBox=\"0 0 %1 %2\" role=\"img\" aria-label=\"%3 against message size\">\n")
                      .arg(static_cast<int>(std::ceil(width)))
                      .arg(size.heightPx)
                      .arg(xmlEscape(table.title));
    svg += QStringLiteral("<title>%1 against message size</title>\n").arg(xmlEscape(yTitle));
    svg += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" class=\"frame\"/>\n")
               .arg(num(kMarginLeft), num(kMarginTop), num(plotW), num(plotH));

    // Grid and ticks.
    for (double v = 0; v <= yTop + yStep / 2; v += yStep) {
        svg += QStringLiteral(
                   "<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%2\" class=\"grid\"/>"
                   "<text x=\"%4\" y=\"%5\" class=\"ytick\">%6</text>\n")
                   .arg(num(kMarginLeft), num(py(v)), num(kMarginLeft + plotW), num(kMarginLeft - 6), num(py(v) + 4),
                        tickLabel(v, yStep));
    }
    for (const Row& row : table.rows) {
        if (row.msgSize <= 0) continue;
        const double x = px(std::log2(static_cast<double>(row.msgSize)));
        svg += QStringLiteral(
                   "<line x1=\"%1\" y1=\"%2\" x2=\"%1\" y2=\"%3\" class=\"grid\"/>"
                   "<text x=\"%1\" y=\"%4\" class=\"xtick\">%5</text>\n")
                   .arg(num(x), num(kMarginTop), num(kMarginTop + plotH), num(kMarginTop + plotH + 16),
                        sizeLabel(row.msgSize));
    }
    svg += QStringLiteral("<text x=\"%1\" y=\"%2\" class=\"xlabel\">Message size (bytes, log2 scale)</text>\n")
               .arg(num(kMarginLeft + plotW / 2), num(height - 10));
    svg += QStringLiteral("<text x=\"16\" y=\"%1\" class=\"ylabel\" transform=\"rotate(-90 16 %1)\">%2</text>\n")
               .arg(num(kMarginTop + plotH / 2), xmlEscape(yTitle));

    // One polyline per column; a missing value breaks the line.
    for (qsizetype c = 0; c < table.columns.size(); ++c) {
        const QString colour = seriesColour(c);
        QStringList segment;
        QString points;
        auto flush = [&] {
            if (segment.size() > 1) {
                svg += QStringLiteral("<polyline class=\"series\" stroke=\"%1\" points=\"%2\"/>\n")
                           .arg(colour, segment.join(QLatin1Char(' ')));
            }
            segment.clear();
        };
        for (const Row& row : table.rows) {
            const std::optional<double> value = c < row.cells.size() ? row.cells[c].value : std::nullopt;
            if (!value || row.msgSize <= 0) {
                flush();
                continue;
            }
            const double x = px(std::log2(static_cast<double>(row.msgSize)));
            const double y = py(*value);
            segment << num(x) + QLatin1Char(',') + num(y);
            if (const auto& interval = row.cells[c].interval) {
                // The median's interval as an error bar with short caps.
                const double lo = py(interval->low);
                const double hi = py(interval->high);
                points +=
                    QStringLiteral(
                        "<path class=\"errorbar\" stroke=\"%1\" d=\"M%2,%3 V%4 M%5,%3 H%6 M%5,%4 H%6\">"
                        "<title>%7, %8 B: %9 %10</title></path>\n")
                        .arg(colour, num(x), num(lo), num(hi), num(x - 3), num(x + 3), xmlEscape(table.columns[c]),
                             QString::number(row.msgSize), intervalText(*interval, 3), xmlEscape(table.unit));
            }
            points += QStringLiteral(
                          "<circle cx=\"%1\" cy=\"%2\" r=\"3\" fill=\"%3\"><title>%4, %5 B: %6 %7</title></circle>\n")
                          .arg(num(x), num(y), colour, xmlEscape(table.columns[c]), QString::number(row.msgSize),
                               QString::number(*value, 'f', 3), xmlEscape(table.unit));
        }
        flush();
        svg += points;
    }

    // Legend.
    const double legendX = kMarginLeft + plotW + 14;
    for (qsizetype c = 0; c < table.columns.size(); ++c) {
        const double y = kMarginTop + 10 + 20.0 * static_cast<double>(c);
        svg += QStringLiteral(
                   "<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%2\" stroke=\"%4\" class=\"legendline\"/>"
                   "<text x=\"%5\" y=\"%6\" class=\"legend\">%7</text>\n")
                   .arg(num(legendX), num(y), num(legendX + 22), seriesColour(c), num(legendX + 28), num(y + 4),
                        xmlEscape(table.columns[c] + (c == 0 ? QStringLiteral(" (baseline)") : QString())));
    }
    svg += QStringLiteral("<text x=\"%1\" y=\"20\" class=\"ptitle\">%2</text>\n")
               .arg(num(kMarginLeft + plotW / 2), xmlEscape(table.title));
    svg += QStringLiteral("</svg>\n");
    return svg;
}

}  // namespace smclab::report
