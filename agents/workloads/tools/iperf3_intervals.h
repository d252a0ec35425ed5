// iperf3's interval lines as it prints them (text mode with --forceflush,
// iperf 3.x), for live samples: the server side of an iperf3 run prints
//
//   [  5]   0.00-0.50   sec   234 MBytes  3.91 Gbits/sec
//   [  8]   0.00-0.50   sec   232 MBytes  3.88 Gbits/sec
//   [SUM]   0.00-0.50   sec   466 MBytes  7.79 Gbits/sec
//   [  5][RX-S]   0.00-0.51   sec   178 MBytes  2.95 Gbits/sec      (--bidir)
//
// per interval while the client's -J report comes only at its end. One
// interval is every line with the same start-end: the [SUM] lines when there
// are (-P > 1), else the streams', added up (both directions of --bidir).
// The end-of-test lines (sender / receiver) are no interval. An interval is
// handed out once a line of the next one, or the separator after it, shows
// it is complete.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "iperf3_output.h"

namespace smclab::workloads {

class Iperf3IntervalText {
public:
    // Takes the next piece of output (any split, even mid-line); returns the
    // intervals it completed.
    std::vector<Iperf3Interval> feed(std::string_view more);

private:
    void takeLine(std::string_view line, std::vector<Iperf3Interval>& out);
    void flush(std::vector<Iperf3Interval>& out);

    std::string m_partial;  // a line not yet ended
    double m_startSec = -1;
    double m_endSec = -1;
    double m_streamBytes = 0;
    double m_sumBytes = 0;
    bool m_haveSum = false;
};

}  // namespace smclab::workloads
