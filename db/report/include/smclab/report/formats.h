// Report formatters: pure functions from the report model to text.
//
//   text      the SMC cover-letter layout, byte for byte (see format_text.h)
//   markdown  one GitHub table per comparison table, plus details/provenance
//   csv       long format: one line per (table, size, column) cell
//   json      the whole ReportDocument; documentFromJson() reads it back
//   html      one self-contained file: inline CSS, inline SVG plots of every
//             table against message size (log2 x axis), tables, counters,
//             settings and provenance
#pragma once

#include <optional>

#include <smcr/result.h>

#include <QList>
#include <QString>

#include "smclab/report/comparison_table.h"
#include "smclab/report/report_document.h"

namespace smclab::report {

enum class Format { invalid = 0, text, markdown, csv, json, html };

// "text", "md"/"markdown", "csv", "json", "html"; nullopt for anything else.
std::optional<Format> parseFormat(const QString& name);
QString formatName(Format format);

// Renders the whole document in one format. `text` prints only the
// comparison tables (the cover-letter part).
QString render(const ReportDocument& document, Format format);

QString formatMarkdown(const ReportDocument& document);
QString formatCsv(const QList<ComparisonTable>& tables);
QString formatJson(const ReportDocument& document);
QString formatHtml(const ReportDocument& document);

// Inverse of formatCsv(): tables with the same titles, units, columns and
// full-precision values (CSV carries values with 17 significant digits).
smcr::Result<QList<ComparisonTable>> tablesFromCsv(const QString& csv);
// Inverse of formatJson().
smcr::Result<ReportDocument> documentFromJson(const QString& json);

// Every table with `column` as its baseline (see withBaseline()); fails on
// the first table that lacks the column.
smcr::Result<ReportDocument> withBaseline(const ReportDocument& document, const QString& column);

}  // namespace smclab::report
