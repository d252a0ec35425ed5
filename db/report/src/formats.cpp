#include "smclab/report/formats.h"

#include "smclab/report/format_text.h"

namespace smclab::report {

std::optional<Format> parseFormat(const QString& name) {
    const QString lower = name.toLower();
    if (lower == QLatin1String("text") || lower == QLatin1String("txt")) return Format::text;
    if (lower == QLatin1String("md") || lower == QLatin1String("markdown")) return Format::markdown;
    if (lower == QLatin1String("csv")) return Format::csv;
    if (lower == QLatin1String("json")) return Format::json;
    if (lower == QLatin1String("html")) return Format::html;
    return std::nullopt;
}

QString formatName(Format format) {
    switch (format) {
        case Format::text:
            return QStringLiteral("text");
        case Format::markdown:
            return QStringLiteral("md");
        case Format::csv:
            return QStringLiteral("csv");
        case Format::json:
            return QStringLiteral("json");
        case Format::html:
            return QStringLiteral("html");
        case Format::invalid:
            break;
    }
    return QStringLiteral("invalid");
}

QString render(const ReportDocument& document, Format format) {
    switch (format) {
        case Format::text:
            return formatTextWithConfidence(document.tables);
        case Format::markdown:
            return formatMarkdown(document);
        case Format::csv:
            return formatCsv(document.tables);
        case Format::json:
            return formatJson(document);
        case Format::html:
            return formatHtml(document);
        case Format::invalid:
            break;
    }
    return QString();
}

smcr::Result<ReportDocument> withBaseline(const ReportDocument& document, const QString& column) {
    ReportDocument out = document;
    for (ComparisonTable& table : out.tables) {
        auto moved = withBaseline(table, column);
        if (!moved) return smcr::fail(moved.error());
        table = std::move(moved).value();
    }
    return out;
}

}  // namespace smclab::report
