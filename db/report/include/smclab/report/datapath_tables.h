// The datapath shapes and engine counters as a report shows them: the
// "==== Shapes ====" block after the cover-letter tables, the Shapes table of
// a document (HTML, markdown, JSON), and per-message counter tables of the
// tcp_bw runs (what each optimisation changes). One presentation for
// `smclab bench stream --preset datapath`, `smclab report` and the GUI.
#pragma once

#include <string>
#include <vector>

#include <QList>
#include <QString>

#include "smclab/report/comparison_table.h"
#include "smclab/report/datapath_shapes.h"
#include "smclab/report/report_document.h"

namespace smclab::report {

// The title of the Shapes table in a document.
inline constexpr const char* kShapesTableTitle = "Shapes";

// One line a shape: verdict, what was asked, what was measured, and the link
// the claim was stated for where the run's link `link` differs.
QString shapesText(const std::vector<ShapeResult>& shapes, const std::string& link);

// The shapes as a document's detail table (verdict, measured, ratio, link).
DetailTable shapesTable(const std::vector<ShapeResult>& shapes);

// Per 1000 application messages of the tcp_bw runs, client and server
// engines summed: one table for each counter some column of `run` has; then
// both processes' CPU time per message (qperf's send_cost + recv_cost) where
// the runs reported it, TCP's column included.
QList<ComparisonTable> perMessageCounterTables(const DatapathRun& run);

}  // namespace smclab::report
