#include "hdr_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include <QJsonArray>

namespace smclab::workloads {

namespace {

constexpr uint32_t kMagic = 0x48445231;  // "HDR1"

void putVarint(QByteArray& out, uint64_t v) {
    while (v >= 0x80) {
        out.append(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.append(static_cast<char>(v));
}

void putU64(QByteArray& out, uint64_t v) {
    for (int i = 0; i < 8; ++i) out.append(static_cast<char>((v >> (8 * i)) & 0xff));
}

// Bounds-checked little-endian reader over the serialised form.
class Reader {
public:
    explicit Reader(const QByteArray& bytes) : m_bytes(bytes) {}
    bool u64(uint64_t* v) {
        if (m_pos + 8 > static_cast<size_t>(m_bytes.size())) return false;
        *v = 0;
        for (int i = 0; i < 8; ++i)
            *v |= static_cast<uint64_t>(static_cast<uint8_t>(m_bytes[qsizetype(m_pos++)])) << (8 * i);
        return true;
    }
    bool varint(uint64_t* v) {
        *v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_pos >= static_cast<size_t>(m_bytes.size())) return false;
            const auto byte = static_cast<uint8_t>(m_bytes[qsizetype(m_pos++)]);
            *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
            if ((byte & 0x80) == 0) return true;
        }
        return false;
    }
    bool atEnd() const { return m_pos == static_cast<size_t>(m_bytes.size()); }

private:
    const QByteArray& m_bytes;
    size_t m_pos = 0;
};

}  // namespace

HdrHistogram::HdrHistogram(uint64_t highestTrackable, int significantDigits)
    : m_highest(std::max<uint64_t>(highestTrackable, 2)), m_digits(std::clamp(significantDigits, 1, 5)) {
    // Sub-buckets per bucket: the power of two at or above 2 * 10^digits.
    uint64_t largestSingleUnit = 2;
    for (int i = 0; i < m_digits; ++i) largestSingleUnit *= 10;
    const int subBucketCountMagnitude = static_cast<int>(std::bit_width(largestSingleUnit - 1));
    m_subBucketHalfCountMagnitude = subBucketCountMagnitude - 1;
    const uint64_t subBucketCount = 1ULL << subBucketCountMagnitude;
    m_subBucketHalfCount = subBucketCount / 2;
    m_subBucketMask = subBucketCount - 1;
    // Buckets until the range covers highestTrackable.
    size_t bucketsNeeded = 1;
    uint64_t smallestUntrackable = subBucketCount;
    while (smallestUntrackable <= m_highest) {
        if (smallestUntrackable > (UINT64_MAX >> 1)) {
            ++bucketsNeeded;
            break;
        }
        smallestUntrackable <<= 1;
        ++bucketsNeeded;
    }
    m_counts.assign((bucketsNeeded + 1) * m_subBucketHalfCount, 0);
}

int HdrHistogram::bucketIndexOf(uint64_t value) const {
    // Position of the highest set bit, with small values all in bucket 0.
    return static_cast<int>(std::bit_width(value | m_subBucketMask)) - 1 - m_subBucketHalfCountMagnitude;
}

size_t HdrHistogram::countsIndex(uint64_t value) const {
    const int bucket = bucketIndexOf(value);
    const uint64_t subBucket = value >> bucket;
    return (static_cast<size_t>(bucket + 1) << m_subBucketHalfCountMagnitude) + (subBucket - m_subBucketHalfCount);
}

uint64_t HdrHistogram::valueFromIndex(size_t index) const {
    int bucket = static_cast<int>(index >> m_subBucketHalfCountMagnitude) - 1;
    uint64_t subBucket = (index & (m_subBucketHalfCount - 1)) + m_subBucketHalfCount;
    if (bucket < 0) {
        subBucket -= m_subBucketHalfCount;
        bucket = 0;
    }
    return subBucket << bucket;
}

uint64_t HdrHistogram::lowestEquivalent(uint64_t value) const {
    const int bucket = bucketIndexOf(value);
    return (value >> bucket) << bucket;
}

uint64_t HdrHistogram::highestEquivalent(uint64_t value) const {
    const int bucket = bucketIndexOf(value);
    return lowestEquivalent(value) + (1ULL << bucket) - 1;
}

void HdrHistogram::recordN(uint64_t value, uint64_t count) {
    if (count == 0) return;
    if (value > m_highest) {
        m_clamped += count;
        value = m_highest;
    }
    m_counts[countsIndex(value)] += count;
    m_totalCount += count;
    m_min = std::min(m_min, value);
    m_max = std::max(m_max, value);
    const long double v = static_cast<long double>(value);
    m_sum += v * count;
    m_sumSquares += v * v * count;
}

void HdrHistogram::reset() {
    std::fill(m_counts.begin(), m_counts.end(), 0);
    m_totalCount = 0;
    m_min = UINT64_MAX;
    m_max = 0;
    m_clamped = 0;
    m_sum = 0;
    m_sumSquares = 0;
}

void HdrHistogram::merge(const HdrHistogram& other) {
    if (other.m_totalCount == 0) return;
    if (other.m_highest == m_highest && other.m_digits == m_digits) {
        for (size_t i = 0; i < m_counts.size(); ++i) m_counts[i] += other.m_counts[i];
        m_totalCount += other.m_totalCount;
        m_min = std::min(m_min, other.m_min);
        m_max = std::max(m_max, other.m_max);
        m_clamped += other.m_clamped;
        m_sum += other.m_sum;
        m_sumSquares += other.m_sumSquares;
        return;
    }
    for (size_t i = 0; i < other.m_counts.size(); ++i) {
        if (other.m_counts[i] == 0) continue;
        const uint64_t low = other.valueFromIndex(i);
        recordN(low + (other.highestEquivalent(low) - low) / 2, other.m_counts[i]);
    }
}

double HdrHistogram::mean() const {
    return m_totalCount ? static_cast<double>(m_sum / static_cast<long double>(m_totalCount)) : 0.0;
}

double HdrHistogram::stdev() const {
    if (m_totalCount == 0) return 0.0;
    const long double n = static_cast<long double>(m_totalCount);
    const long double mu = m_sum / n;
    const long double variance = std::max<long double>(0, m_sumSquares / n - mu * mu);
    return static_cast<double>(std::sqrt(variance));
}

uint64_t HdrHistogram::valueAtPercentile(double percentile) const {
    if (m_totalCount == 0) return 0;
    const double p = std::clamp(percentile, 0.0, 100.0);
    uint64_t countAt = static_cast<uint64_t>(std::floor(p / 100.0 * static_cast<double>(m_totalCount) + 0.5));
    countAt = std::max<uint64_t>(countAt, 1);
    uint64_t running = 0;
    for (size_t i = 0; i < m_counts.size(); ++i) {
        running += m_counts[i];
        if (running >= countAt) return highestEquivalent(valueFromIndex(i));
    }
    return highestEquivalent(m_max);
}

uint64_t HdrHistogram::countAtOrBelow(uint64_t value) const {
    uint64_t below = 0;
    const size_t last = countsIndex(std::min(value, m_highest));
    for (size_t i = 0; i <= last && i < m_counts.size(); ++i) below += m_counts[i];
    return below;
}

double HdrHistogram::percentileOfValue(uint64_t value) const {
    if (m_totalCount == 0) return 0.0;
    return 100.0 * static_cast<double>(countAtOrBelow(value)) / static_cast<double>(m_totalCount);
}

std::vector<HdrHistogram::Bucket> HdrHistogram::nonEmptyBuckets() const {
    std::vector<Bucket> out;
    for (size_t i = 0; i < m_counts.size(); ++i) {
        if (m_counts[i] != 0) out.push_back({highestEquivalent(valueFromIndex(i)), m_counts[i]});
    }
    return out;
}

QByteArray HdrHistogram::toBytes() const {
    QByteArray out;
    putU64(out, kMagic);
    putU64(out, m_highest);
    putU64(out, static_cast<uint64_t>(m_digits));
    putU64(out, m_totalCount);
    putU64(out, m_min);
    putU64(out, m_max);
    putU64(out, m_clamped);
    // Exact sums as doubles: enough for mean/stdev after a round trip.
    putU64(out, std::bit_cast<uint64_t>(static_cast<double>(m_sum)));
    putU64(out, std::bit_cast<uint64_t>(static_cast<double>(m_sumSquares)));
    size_t previous = 0;
    for (size_t i = 0; i < m_counts.size(); ++i) {
        if (m_counts[i] == 0) continue;
        putVarint(out, i - previous);
        putVarint(out, m_counts[i]);
        previous = i;
    }
    return out;
}

smcr::Result<HdrHistogram> HdrHistogram::fromBytes(const QByteArray& bytes) {
    Reader in(bytes);
    uint64_t magic = 0, highest = 0, digits = 0, total = 0, minV = 0, maxV = 0, clamped = 0, sum = 0, sumSq = 0;
    if (!in.u64(&magic) || magic != kMagic) return smcr::fail(smcr::Errc::malformed, "histogram: bad magic");
    if (!in.u64(&highest) || !in.u64(&digits) || !in.u64(&total) || !in.u64(&minV) || !in.u64(&maxV) ||
        !in.u64(&clamped) || !in.u64(&sum) || !in.u64(&sumSq)) {
        return smcr::fail(smcr::Errc::malformed, "histogram: truncated header");
    }
    if (highest < 2 || digits < 1 || digits > 5) return smcr::fail(smcr::Errc::malformed, "histogram: bad layout");
    HdrHistogram h(highest, static_cast<int>(digits));
    size_t index = 0;
    uint64_t counted = 0;
    bool first = true;
    while (!in.atEnd()) {
        uint64_t gap = 0, count = 0;
        if (!in.varint(&gap) || !in.varint(&count))
            return smcr::fail(smcr::Errc::malformed, "histogram: truncated counts");
        if (!first && gap == 0) return smcr::fail(smcr::Errc::malformed, "histogram: repeated bucket");
        first = false;
        if (gap >= h.m_counts.size() - index)
            return smcr::fail(smcr::Errc::malformed, "histogram: bucket out of range");
        index += gap;
        h.m_counts[index] = count;
        counted += count;
    }
    if (counted != total) return smcr::fail(smcr::Errc::malformed, "histogram: counts do not add up to the total");
    h.m_totalCount = total;
    h.m_min = total ? minV : UINT64_MAX;
    h.m_max = maxV;
    h.m_clamped = clamped;
    h.m_sum = std::bit_cast<double>(sum);
    h.m_sumSquares = std::bit_cast<double>(sumSq);
    return h;
}

QJsonObject HdrHistogram::toJson(double scale, const QString& unit, bool withBuckets) const {
    auto scaled = [scale](double v) { return v / scale; };
    QJsonObject o;
    o["unit"] = unit;
    o["count"] = static_cast<double>(m_totalCount);
    o["min"] = scaled(static_cast<double>(min()));
    o["max"] = scaled(static_cast<double>(max()));
    o["mean"] = scaled(mean());
    o["stdev"] = scaled(stdev());
    o["p50"] = scaled(static_cast<double>(valueAtPercentile(50)));
    o["p75"] = scaled(static_cast<double>(valueAtPercentile(75)));
    o["p90"] = scaled(static_cast<double>(valueAtPercentile(90)));
    o["p99"] = scaled(static_cast<double>(valueAtPercentile(99)));
    o["p999"] = scaled(static_cast<double>(valueAtPercentile(99.9)));
    o["p9999"] = scaled(static_cast<double>(valueAtPercentile(99.99)));
    if (withBuckets) {
        QJsonArray buckets;
        for (const Bucket& b : nonEmptyBuckets()) {
            buckets.append(QJsonArray{scaled(static_cast<double>(b.value)), static_cast<double>(b.count)});
        }
        o["buckets"] = buckets;
    }
    return o;
}

}  // namespace smclab::workloads
