// An HDR-style latency histogram (after HdrHistogram; Debian has no C++ port).
//
// Layout: values are non-negative integers (the lab records nanoseconds).
// With D significant digits, each power-of-two bucket is split into 2^k
// linear sub-buckets where 2^k >= 2 * 10^D, so any recorded value is known to
// within 1 part in 10^D (D = 3: 0.1 %). Bucket 0 holds 0 .. 2^k - 1 exactly;
// bucket b >= 1 holds [2^(k-1+b), 2^(k+b)) in sub-buckets 2^b wide. Values
// above the highest trackable value are clamped to it (and counted in
// clampedCount()).
//
// Percentile rule (HdrHistogram's hdr_value_at_percentile, used by wrk2 and
// redis-benchmark): for p in [0, 100], with N recorded values,
//     countAt = max(1, floor(p / 100 * N + 0.5))
// walk the sub-buckets in value order summing counts; at the first sub-bucket
// where the running total reaches countAt, return that sub-bucket's HIGHEST
// equivalent value (the top of its range). Empty histogram: 0.
//
// min, max, mean and stdev are exact (kept beside the buckets), not bucket
// estimates; stdev is the population standard deviation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <smcr/result.h>

#include <QByteArray>
#include <QJsonObject>

namespace smclab::workloads {

class HdrHistogram {
public:
    // highestTrackable >= 2; significantDigits in 1..5.
    explicit HdrHistogram(uint64_t highestTrackable = kDefaultHighest, int significantDigits = 3);

    static constexpr uint64_t kDefaultHighest = 100ULL * 1000 * 1000 * 1000;  // 100 s in ns

    void record(uint64_t value) { recordN(value, 1); }
    void recordN(uint64_t value, uint64_t count);
    void reset();
    // Adds other's counts. Other must have the same layout (highest, digits);
    // otherwise its values are re-recorded at their bucket midpoints.
    void merge(const HdrHistogram& other);

    uint64_t count() const { return m_totalCount; }
    uint64_t min() const { return m_totalCount ? m_min : 0; }
    uint64_t max() const { return m_max; }
    double mean() const;
    double stdev() const;
    uint64_t clampedCount() const { return m_clamped; }
    // See the percentile rule above.
    uint64_t valueAtPercentile(double percentile) const;
    // Recorded values whose bucket lies at or below value's bucket.
    uint64_t countAtOrBelow(uint64_t value) const;
    // Percentage of recorded values <= value (for wrk-style "+/- Stdev").
    double percentileOfValue(uint64_t value) const;

    uint64_t highestTrackable() const { return m_highest; }
    int significantDigits() const { return m_digits; }

    // Bucket geometry (exposed for tests and serialisers).
    size_t countsIndex(uint64_t value) const;
    uint64_t lowestEquivalent(uint64_t value) const;
    uint64_t highestEquivalent(uint64_t value) const;

    // Non-empty sub-buckets in value order: {highest equivalent value, count}.
    struct Bucket {
        uint64_t value;
        uint64_t count;
    };
    std::vector<Bucket> nonEmptyBuckets() const;

    // Compact binary form for SQLite blobs: a versioned header (layout, exact
    // min/max/sum/sum of squares) then varint (index gap, count) pairs of the
    // non-empty sub-buckets. fromBytes rejects malformed input with an error.
    QByteArray toBytes() const;
    static smcr::Result<HdrHistogram> fromBytes(const QByteArray& bytes);

    // {"count","min","max","mean","stdev","p50","p75","p90","p99","p999","p9999",
    //  "unit", "buckets": [[value, count], ...] (only with withBuckets)}.
    // `scale` divides every value (1000 turns ns into us), unit names it.
    QJsonObject toJson(double scale = 1000.0, const QString& unit = QStringLiteral("us"),
                       bool withBuckets = false) const;

private:
    int bucketIndexOf(uint64_t value) const;
    uint64_t valueFromIndex(size_t index) const;

    uint64_t m_highest;
    int m_digits;
    int m_subBucketHalfCountMagnitude = 0;
    uint64_t m_subBucketHalfCount = 0;
    uint64_t m_subBucketMask = 0;
    std::vector<uint64_t> m_counts;
    uint64_t m_totalCount = 0;
    uint64_t m_min = UINT64_MAX;
    uint64_t m_max = 0;
    uint64_t m_clamped = 0;
    long double m_sum = 0;
    long double m_sumSquares = 0;
};

}  // namespace smclab::workloads
