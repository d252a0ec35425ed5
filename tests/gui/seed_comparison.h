// The seed 000 cover-letter tables (bench-anchors.md section 7) as the GUI's
// comparison data, shared by the gui tests.
#pragma once

#include "data/comparison.h"

namespace smclab::gui::testing {

// Bandwidth and latency, columns "Origin SMC", "TCP", "SMC with patches",
// sizes 1..65536; the values printed in the letter.
Comparison seedComparison();

}  // namespace smclab::gui::testing
