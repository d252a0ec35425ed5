// Order-statistic intervals (see statistics.h for the method and why).
#include "smclab/report/statistics.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace smclab::report {

namespace {

constexpr double kTarget = kConfidenceTargetPct / 100.0;
// Above this many pairwise ratios the Mann-Whitney distribution is taken as
// normal (its error there is far below the steps between order statistics).
constexpr int kExactPairsMax = 2500;

// P(B <= j), B ~ Binomial(n, 1/2), summed in log space so n = 1000 neither
// underflows nor overflows.
double binomialCdfHalf(int n, int j) {
    double sum = 0.0;
    const double logHalfN = -static_cast<double>(n) * std::log(2.0);
    for (int i = 0; i <= j && i <= n; ++i) {
        sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + logHalfN);
    }
    return std::min(sum, 1.0);
}

// Counts of the Mann-Whitney U for sample sizes n and m under no difference:
// f(i, j)[u] = f(i-1, j)[u-j] + f(i, j-1)[u] (the last of the i+j ordered
// values belongs to the first sample, scoring j, or to the second). Index u
// of the result, 0..n*m; the counts sum to C(n+m, n).
std::vector<double> mannWhitneyCounts(int n, int m) {
    std::vector<std::vector<double>> f(static_cast<size_t>(n) + 1, std::vector<double>{1.0});
    for (int j = 1; j <= m; ++j) {
        for (int i = 1; i <= n; ++i) {
            std::vector<double>& cur = f[static_cast<size_t>(i)];
            const std::vector<double>& prev = f[static_cast<size_t>(i) - 1];  // already f(i-1, j)
            cur.resize(static_cast<size_t>(i) * static_cast<size_t>(j) + 1, 0.0);
            for (size_t u = 0; u < prev.size(); ++u) cur[u + static_cast<size_t>(j)] += prev[u];
        }
    }
    return f[static_cast<size_t>(n)];
}

double normalCdf(double z) {
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

// P(U <= j) for sizes n, m.
double shiftCdf(int n, int m, int j) {
    if (j < 0) return 0.0;
    const double pairs = static_cast<double>(n) * m;
    if (pairs > kExactPairsMax) {
        const double sd = std::sqrt(pairs * (n + m + 1) / 12.0);
        return normalCdf((j + 0.5 - pairs / 2.0) / sd);
    }
    const std::vector<double> counts = mannWhitneyCounts(n, m);
    double total = 0.0;
    double below = 0.0;
    for (size_t u = 0; u < counts.size(); ++u) {
        total += counts[u];
        if (static_cast<int>(u) <= j) below += counts[u];
    }
    return below / total;
}

// The largest k in [1, kMax] whose coverage reaches the target, else 1.
template <typename Coverage>
int bestK(int kMax, const Coverage& coverage) {
    int k = 1;
    while (k + 1 <= kMax && coverage(k + 1) >= kTarget) ++k;
    return k;
}

}  // namespace

const char* noiseName(Noise noise) {
    switch (noise) {
        case Noise::within:
            return "within noise";
        case Noise::higher:
            return "higher";
        case Noise::lower:
            return "lower";
        case Noise::unknown:
            break;
    }
    return "unknown";
}

double medianCoverage(int n, int k) {
    if (n < 1 || k < 1 || 2 * k > n + 1) return 0.0;
    return std::max(0.0, 1.0 - 2.0 * binomialCdfHalf(n, k - 1));
}

double shiftCoverage(int n, int m, int k) {
    if (n < 1 || m < 1 || k < 1 || 2 * k > n * m + 1) return 0.0;
    return std::max(0.0, 1.0 - 2.0 * shiftCdf(n, m, k - 1));
}

std::optional<double> medianOf(QList<double> values) {
    if (values.isEmpty()) return std::nullopt;
    std::sort(values.begin(), values.end());
    const qsizetype n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

std::optional<Interval> medianInterval(QList<double> values) {
    const int n = static_cast<int>(values.size());
    if (n < 2) return std::nullopt;
    std::sort(values.begin(), values.end());
    // Coverage grows as k shrinks; k = n/2 is the narrowest symmetric pair.
    const int k = bestK(n / 2, [n](int kk) { return medianCoverage(n, kk); });
    return Interval{values[k - 1], values[n - k], 100.0 * medianCoverage(n, k)};
}

namespace {

// Pairwise ratios (logs) or differences, sorted, and the chosen interval
// over them.
std::optional<Interval> pairwiseInterval(const QList<double>& values, const QList<double>& base, bool ratio) {
    const int n = static_cast<int>(values.size());
    const int m = static_cast<int>(base.size());
    if (n < 2 || m < 2) return std::nullopt;
    std::vector<double> pairs;
    pairs.reserve(static_cast<size_t>(n) * static_cast<size_t>(m));
    for (double a : values) {
        for (double b : base) pairs.push_back(ratio ? a / b : a - b);
    }
    std::sort(pairs.begin(), pairs.end());
    const int count = n * m;
    // The exact distribution is computed once for all k.
    std::vector<double> cdf;
    if (count <= kExactPairsMax) {
        const std::vector<double> counts = mannWhitneyCounts(n, m);
        double total = 0.0;
        for (double c : counts) total += c;
        double run = 0.0;
        for (double c : counts) cdf.push_back((run += c) / total);
    }
    const auto coverage = [&](int k) {
        if (cdf.empty()) return shiftCoverage(n, m, k);
        return std::max(0.0, 1.0 - 2.0 * cdf[static_cast<size_t>(k) - 1]);  // 1 - 2 P(U <= k-1)
    };
    const int k = bestK(count / 2, coverage);
    return Interval{pairs[static_cast<size_t>(k) - 1], pairs[static_cast<size_t>(count - k)], 100.0 * coverage(k)};
}

bool allPositive(const QList<double>& values) {
    return std::all_of(values.begin(), values.end(), [](double v) { return v > 0.0; });
}

}  // namespace

std::optional<Interval> ratioInterval(const QList<double>& values, const QList<double>& base) {
    if (!allPositive(values) || !allPositive(base)) return std::nullopt;
    return pairwiseInterval(values, base, true);
}

std::optional<Change> changeOf(const QList<double>& values, const QList<double>& base) {
    const std::optional<double> a = medianOf(values);
    const std::optional<double> b = medianOf(base);
    if (!a || !b || *b == 0.0) return std::nullopt;
    Change change;
    change.pct = (*a / *b - 1.0) * 100.0;
    std::optional<Interval> interval;
    if (allPositive(values) && allPositive(base)) {
        interval = pairwiseInterval(values, base, true);
        if (interval) {
            interval->low = (interval->low - 1.0) * 100.0;
            interval->high = (interval->high - 1.0) * 100.0;
        }
    } else {
        interval = pairwiseInterval(values, base, false);
        if (interval) {
            interval->low = interval->low / std::fabs(*b) * 100.0;
            interval->high = interval->high / std::fabs(*b) * 100.0;
        }
    }
    change.interval = interval;
    if (interval) {
        change.noise = interval->contains(0.0) ? Noise::within : interval->low > 0.0 ? Noise::higher : Noise::lower;
    }
    return change;
}

QString intervalText(const Interval& interval, int decimals) {
    return QStringLiteral("[%1, %2] %3%")
        .arg(QString::number(interval.low, 'f', decimals), QString::number(interval.high, 'f', decimals),
             QString::number(interval.confidencePct, 'f', 1));
}

}  // namespace smclab::report
