// Uncertainty of repeated measurements: the median of a cell's repetitions
// with a 95% confidence interval, and the change of one cell against another
// (the baseline) with its own interval.
//
// Both intervals are distribution-free order-statistic intervals, not a
// bootstrap. Why: a lab cell has 3..10 repetitions, and at that size a
// percentile bootstrap of the median can only return sample points (for 3
// repetitions exactly [min, max]) while calling it 95%; the order-statistic
// interval returns the same points but states the confidence it really has,
// it is exact for any continuous distribution (throughput is skewed and
// sometimes bimodal, so no normal model), and it is deterministic, so a
// report renders the same bytes every time.
//
//   median     [x(k), x(n+1-k)] of the sorted sample, coverage
//              1 - 2 P(B <= k-1), B ~ Binomial(n, 1/2); k is the largest
//              with coverage >= 95%. Needs n >= 6 for 95%; below that the
//              interval is [min, max] with its real coverage (n = 3: 75%).
//   change     the ratio of two cells' locations: all n*m pairwise ratios
//              a_i / b_j, sorted, and [r(k), r(nm+1-k)] with coverage
//              1 - 2 P(U <= k-1), U the Mann-Whitney statistic of sizes n
//              and m under no difference (exact distribution up to 2500
//              pairs, the normal approximation above). This is the interval
//              that belongs to the Hodges-Lehmann estimator (Bauer 1972)
//              taken on log values, so it is a ratio and reads as a percent
//              change. Needs n = m = 4 for 95%; 3 against 3 gives [min, max]
//              of the pairwise ratios at 90%. Cells with a value <= 0 use
//              differences a_i - b_j instead, in percent of the base median.
//
// A change is "within noise" when its interval contains 0 %. The printed
// change stays the cover letters' (median / base median - 1) * 100.
#pragma once

#include <optional>

#include <QList>
#include <QString>

namespace smclab::report {

inline constexpr double kConfidenceTargetPct = 95.0;

// [low, high] in the unit of what it bounds (the table's unit for a median,
// percent for a change), and the confidence it actually has.
struct Interval {
    double low = 0.0;
    double high = 0.0;
    double confidencePct = 0.0;  // >= kConfidenceTargetPct when the sample sizes allow it

    bool contains(double x) const { return low <= x && x <= high; }
    bool reachesTarget() const { return confidencePct >= kConfidenceTargetPct; }
    bool operator==(const Interval&) const = default;
};

// Where a change lies against "no difference".
enum class Noise {
    unknown = 0,  // no interval (fewer than 2 repetitions on a side)
    within,       // the interval contains 0 %
    higher,       // the whole interval is above 0 %
    lower,        // the whole interval is below 0 %
};
const char* noiseName(Noise noise);  // "unknown", "within noise", "higher", "lower"

// The change of a cell against a base cell, in percent.
struct Change {
    double pct = 0.0;                  // (median / base median - 1) * 100, as the cover letters print it
    std::optional<Interval> interval;  // in percent; nullopt under 2 repetitions on either side
    Noise noise = Noise::unknown;

    bool operator==(const Change&) const = default;
};

// Median of the values (mean of the middle two for an even count); nullopt
// when empty.
std::optional<double> medianOf(QList<double> values);

// The order-statistic interval of the median; nullopt under 2 values.
std::optional<Interval> medianInterval(QList<double> values);

// The interval of the ratio of the locations of `values` and `base`
// (value / base, e.g. 1.10 = 10 % higher); nullopt under 2 values on either
// side, or when a value is <= 0 (use changeInterval()).
std::optional<Interval> ratioInterval(const QList<double>& values, const QList<double>& base);

// Change of `values` against `base`: the cover-letter percent from the
// medians and the distribution-free interval around it. nullopt when either
// side is empty or the base median is 0.
std::optional<Change> changeOf(const QList<double>& values, const QList<double>& base);

// Coverage of [x(k), x(n+1-k)] for the median of n values (k 1-based).
double medianCoverage(int n, int k);
// Coverage of [r(k), r(nm+1-k)] of the n*m pairwise ratios.
double shiftCoverage(int n, int m, int k);

// "[1.234, 1.456] 75%" style text, `decimals` after the point.
QString intervalText(const Interval& interval, int decimals);

}  // namespace smclab::report
