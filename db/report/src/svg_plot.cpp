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

namespace {

// Where things go: the plot area inside its margins, the axes' ranges
// (x in log2 of the message size) and the mapping of values to pixels.
struct PlotFrame {
    double plotW = 0, plotH = 0, width = 0, height = 0;
    double xMin = 0, xMax = 1, yStep = 1, yTop = 1;
    // Bandwidth over a size sweep spans decades (1 B at 0.5 MB/s, 64 KiB at
    // 5000): a log10 axis from 10^logLo to 10^logHi, as the desktop's plot
    // (gui ComparisonSection::prefersLogScale), so 1 B points are not on zero.
    bool logY = false;
    int logLo = 0, logHi = 1;

    double px(double lx) const { return kMarginLeft + (lx - xMin) / (xMax - xMin) * plotW; }
    double py(double v) const {
        if (!logY) return kMarginTop + plotH - v / yTop * plotH;
        const double lv = std::log10(std::max(v, std::pow(10.0, logLo)));
        return kMarginTop + plotH - (lv - logLo) / (logHi - logLo) * plotH;
    }
    double sizeX(qint64 msgSize) const { return px(std::log2(static_cast<double>(msgSize))); }
};

PlotFrame plotFrame(const ComparisonTable& table, PlotSize size) {
    qsizetype longest = 0;
    for (qsizetype c = 0; c < table.columns.size(); ++c) {
        longest = std::max(longest, table.columns[c].size() + (c == 0 ? 11 : 0));  // " (baseline)"
    }
    const double marginRight = std::max(kMarginRight, 44 + kLegendCharPx * static_cast<double>(longest));
    PlotFrame f;
    f.plotW = size.widthPx - kMarginLeft - kMarginRight;
    f.width = kMarginLeft + f.plotW + marginRight;
    f.height = size.heightPx;
    f.plotH = f.height - kMarginTop - kMarginBottom;

    double yMax = 0;
    double yMin = 0;  // smallest positive value
    bool first = true;
    for (const Row& row : table.rows) {
        if (row.msgSize <= 0) continue;
        const double lx = std::log2(static_cast<double>(row.msgSize));
        f.xMin = first ? lx : std::min(f.xMin, lx);
        f.xMax = first ? lx : std::max(f.xMax, lx);
        first = false;
        for (const Cell& cell : row.cells) {
            if (cell.value) yMax = std::max(yMax, *cell.value + cell.spread);
            if (cell.interval) yMax = std::max(yMax, cell.interval->high);
            if (cell.value && *cell.value > 0) yMin = yMin > 0 ? std::min(yMin, *cell.value) : *cell.value;
        }
    }
    if (f.xMax - f.xMin < 1.0) {
        f.xMin -= 0.5;
        f.xMax += 0.5;
    }
    f.yStep = niceStep(yMax > 0 ? yMax : 1.0, 5);
    f.yTop = std::max(f.yStep, std::ceil(yMax / f.yStep) * f.yStep);
    if (table.metric == QLatin1String("bw_mbps") && yMin > 0 && yMax / yMin >= 100.0) {
        f.logY = true;
        f.logLo = static_cast<int>(std::floor(std::log10(yMin)));
        f.logHi = std::max(f.logLo + 1, static_cast<int>(std::ceil(std::log10(yMax))));
    }
    return f;
}

QString yAxisTitle(const ComparisonTable& table) {
    return table.unit.isEmpty() ? table.title : QStringLiteral("%1 (%2)").arg(table.title, table.unit);
}

QString svgHeader(const ComparisonTable& table, PlotSize size, const PlotFrame& f) {
    QString svg = QStringLiteral(
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%1\" height=\"%2\" "
                      "viewBox=\"0 0 %1 %2\" role=\"img\" aria-label=\"%3 against message size\">\n")
                      .arg(static_cast<int>(std::ceil(f.width)))
                      .arg(size.heightPx)
                      .arg(xmlEscape(table.title));
    svg += QStringLiteral("<title>%1 against message size</title>\n").arg(xmlEscape(yAxisTitle(table)));
    svg += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" class=\"frame\"/>\n")
               .arg(num(kMarginLeft), num(kMarginTop), num(f.plotW), num(f.plotH));
    return svg;
}

// Grid lines, ticks and the two axis titles.
QString svgAxes(const ComparisonTable& table, const PlotFrame& f) {
    QString svg;
    const auto yTick = [&](double v, const QString& label) {
        svg += QStringLiteral(
                   "<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%2\" class=\"grid\"/>"
                   "<text x=\"%4\" y=\"%5\" class=\"ytick\">%6</text>\n")
                   .arg(num(kMarginLeft), num(f.py(v)), num(kMarginLeft + f.plotW), num(kMarginLeft - 6),
                        num(f.py(v) + 4), label);
    };
    if (f.logY) {
        for (int k = f.logLo; k <= f.logHi; ++k)
            yTick(std::pow(10.0, k), tickLabel(std::pow(10.0, k), std::pow(10.0, k)));
    } else {
        for (double v = 0; v <= f.yTop + f.yStep / 2; v += f.yStep) yTick(v, tickLabel(v, f.yStep));
    }
    for (const Row& row : table.rows) {
        if (row.msgSize <= 0) continue;
        const double x = f.sizeX(row.msgSize);
        svg += QStringLiteral(
                   "<line x1=\"%1\" y1=\"%2\" x2=\"%1\" y2=\"%3\" class=\"grid\"/>"
                   "<text x=\"%1\" y=\"%4\" class=\"xtick\">%5</text>\n")
                   .arg(num(x), num(kMarginTop), num(kMarginTop + f.plotH), num(kMarginTop + f.plotH + 16),
                        sizeLabel(row.msgSize));
    }
    svg += QStringLiteral("<text x=\"%1\" y=\"%2\" class=\"xlabel\">Message size (bytes, log2 scale)</text>\n")
               .arg(num(kMarginLeft + f.plotW / 2), num(f.height - 10));
    svg += QStringLiteral("<text x=\"16\" y=\"%1\" class=\"ylabel\" transform=\"rotate(-90 16 %1)\">%2%3</text>\n")
               .arg(num(kMarginTop + f.plotH / 2), xmlEscape(yAxisTitle(table)),
                    f.logY ? QStringLiteral(", log scale") : QString());
    return svg;
}

// One point of column `c`: its median's interval as an error bar with short
// caps, then the dot with its value as a tooltip.
QString svgPoint(const ComparisonTable& table, qsizetype c, const Row& row, const PlotFrame& f) {
    const QString colour = seriesColour(table.colourIndex(c));
    const double value = *row.cells[c].value;
    const double x = f.sizeX(row.msgSize);
    QString svg;
    if (const auto& interval = row.cells[c].interval) {
        svg += QStringLiteral(
                   "<path class=\"errorbar\" stroke=\"%1\" d=\"M%2,%3 V%4 M%5,%3 H%6 M%5,%4 H%6\">"
                   "<title>%7, %8 B: %9 %10</title></path>\n")
                   .arg(colour, num(x), num(f.py(interval->low)), num(f.py(interval->high)), num(x - 3), num(x + 3),
                        xmlEscape(table.columns[c]), QString::number(row.msgSize), intervalText(*interval, 3),
                        xmlEscape(table.unit));
    }
    svg += QStringLiteral("<circle cx=\"%1\" cy=\"%2\" r=\"3\" fill=\"%3\"><title>%4, %5 B: %6 %7</title></circle>\n")
               .arg(num(x), num(f.py(value)), colour, xmlEscape(table.columns[c]), QString::number(row.msgSize),
                    QString::number(value, 'f', 3), xmlEscape(table.unit));
    return svg;
}

// Column `c` as polylines (a missing value breaks the line), then its points.
QString svgSeries(const ComparisonTable& table, qsizetype c, const PlotFrame& f) {
    const QString colour = seriesColour(table.colourIndex(c));
    QString svg;
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
        segment << num(f.sizeX(row.msgSize)) + QLatin1Char(',') + num(f.py(*value));
        points += svgPoint(table, c, row, f);
    }
    flush();
    return svg + points;
}

QString svgLegend(const ComparisonTable& table, const PlotFrame& f) {
    QString svg;
    const double legendX = kMarginLeft + f.plotW + 14;
    for (qsizetype c = 0; c < table.columns.size(); ++c) {
        const double y = kMarginTop + 10 + 20.0 * static_cast<double>(c);
        svg += QStringLiteral(
                   "<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%2\" stroke=\"%4\" class=\"legendline\"/>"
                   "<text x=\"%5\" y=\"%6\" class=\"legend\">%7</text>\n")
                   .arg(num(legendX), num(y), num(legendX + 22), seriesColour(table.colourIndex(c)), num(legendX + 28),
                        num(y + 4), xmlEscape(table.columns[c] + (c == 0 ? QStringLiteral(" (baseline)") : QString())));
    }
    return svg;
}

}  // namespace

QString svgPlot(const ComparisonTable& table, PlotSize size) {
    const PlotFrame frame = plotFrame(table, size);
    QString svg = svgHeader(table, size, frame);
    svg += svgAxes(table, frame);
    for (qsizetype c = 0; c < table.columns.size(); ++c) svg += svgSeries(table, c, frame);
    svg += svgLegend(table, frame);
    svg += QStringLiteral("<text x=\"%1\" y=\"20\" class=\"ptitle\">%2</text>\n")
               .arg(num(kMarginLeft + frame.plotW / 2), xmlEscape(table.title));
    svg += QStringLiteral("</svg>\n");
    return svg;
}

}  // namespace smclab::report
