// The SMC cover-letter table layout (bench-anchors section 7; the letter of
// "net/smc: some datapath performance optimizations", 2022-03-01):
//
//   ==== Bandwidth ====
//    MsgSize        Origin SMC              TCP                SMC with patches
//          1         0.578 MB/s      2.392 MB/s(313.84%)      2.561 MB/s(343.08%)
//
// Rows: MsgSize right-aligned in 8; the baseline value "%14.3f" + " unit"
// without a percentage; every further column "%W.3f" + " unit" +
// "(%6.2f%)" with pct = (x / base - 1) * 100 from unrounded values. W is 11
// for every compared column of a higher-is-better table; a lower-is-better
// (latency) table uses 11 for the first compared column and 15 after it,
// as the letter does.
//
// Header: the letter's spacing, which is the same for both tables: "MsgSize"
// right-aligned in 8, eight spaces, the baseline label left-aligned in 24,
// each further label left-aligned in 19 (the last one unpadded).
//
// Generalisation: any number of columns; a column whose values or label do
// not fit is widened, and the header field above it by the same amount, so
// labels stay over their columns; missing values print "-" where the number
// would end; trailing blanks are trimmed. The three-column letter tables come
// out byte for byte.
//
// What the connections did (connection_use.h; Cell::fallbackRepetitions,
// tcpRepetitions): a cell whose data went over TCP is marked " [TCP]" and
// has no percentage (nor has any cell of its row when it is the baseline);
// a cell in which some connection fell back but the data went over RDMA is
// marked " [fb]". A column with a mark is widened by it (its header field
// too), and a legend under the table names each marked column's sizes and
// the reasons. Tables without marks keep the layout above.
//
// formatText() ends with "==== Wire ====", each column's wire
// (ComparisonTable::wires) when known.
#pragma once

#include <QList>
#include <QString>

#include "smclab/report/comparison_table.h"

namespace smclab::report {

// One table: the "==== Title ====" line, the header and one line per row,
// each ending in '\n'.
QString formatTextTable(const ComparisonTable& table);
// Tables back to back, as in the letter (no blank line between them).
QString formatText(const QList<ComparisonTable>& tables);

// The "==== Confidence ====" section that follows the letter's tables in
// text output: per table, size and column the repetitions, the median with
// its interval, the change against the baseline with its interval and
// whether it is outside the noise, and how many repetitions ran on a busy
// host. Empty when no cell has two or more repetitions (there is no interval
// to show, and the letter's layout stays the whole output).
QString formatConfidence(const QList<ComparisonTable>& tables);
// formatText() followed by formatConfidence(): what `--format text` prints.
QString formatTextWithConfidence(const QList<ComparisonTable>& tables);

}  // namespace smclab::report
