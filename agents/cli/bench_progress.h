// Progress of a long local benchmark on stderr: a bar with the count, the
// current step and the time left on a terminal (redrawn in place), plain
// lines otherwise (logs, CI), like `smclab run`.
#pragma once

#include <cstdint>
#include <string>

namespace smclab::cli {

class BenchProgress {
public:
    // `total` steps of about `stepMs` each (for the first time estimate).
    BenchProgress(int total, uint64_t stepMs);
    ~BenchProgress();

    // Starting step `what` ("tcp_bw SMC-NoCork 64 B").
    void begin(const std::string& what);
    // The step ended; `outcome` is printed on the plain line ("123.4 MB/s").
    void end(const std::string& outcome);
    // A message that must not be overdrawn (a warning).
    void note(const std::string& text);
    // Removes the bar before the results are printed.
    void finish();

private:
    void draw();
    void clear();
    std::string eta() const;

    int m_total;
    int m_done = 0;
    uint64_t m_stepMs;
    uint64_t m_startNs;
    bool m_tty;
    bool m_shown = false;
    std::string m_current;
};

}  // namespace smclab::cli
