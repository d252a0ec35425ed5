#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <QJsonArray>
#include <QTest>

#include "hdr_histogram.h"

using smclab::workloads::HdrHistogram;

namespace {

// The documented rule, computed on raw samples: the value at rank
// max(1, floor(p/100*N + 0.5)), reported as the top of its bucket.
uint64_t expectedPercentile(const HdrHistogram& h, std::vector<uint64_t> sorted, double p) {
    std::sort(sorted.begin(), sorted.end());
    uint64_t rank = static_cast<uint64_t>(std::floor(p / 100.0 * static_cast<double>(sorted.size()) + 0.5));
    rank = std::max<uint64_t>(rank, 1);
    return h.highestEquivalent(sorted[rank - 1]);
}

}  // namespace

class TestHdrHistogram : public QObject {
    Q_OBJECT
private slots:
    void emptyHistogramIsZero() {
        HdrHistogram h;
        QCOMPARE(h.count(), 0u);
        QCOMPARE(h.valueAtPercentile(50), 0u);
        QCOMPARE(h.min(), 0u);
        QCOMPARE(h.max(), 0u);
        QCOMPARE(h.mean(), 0.0);
    }

    void smallValuesAreExact() {
        HdrHistogram h;
        for (uint64_t v = 0; v < 2048; ++v) h.record(v);
        QCOMPARE(h.valueAtPercentile(0), 0u);  // rank at least 1
        QCOMPARE(h.valueAtPercentile(100), 2047u);
        QCOMPARE(h.valueAtPercentile(50), 1023u);  // rank floor(1024+0.5) = 1024 -> value 1023
        QCOMPARE(h.highestEquivalent(1500), 1500u);
    }

    void bucketGeometryKeepsThreeDigits() {
        HdrHistogram h;
        for (uint64_t v : {2048ULL, 5000ULL, 123456ULL, 987654321ULL, 99999999999ULL}) {
            const uint64_t lo = h.lowestEquivalent(v);
            const uint64_t hi = h.highestEquivalent(v);
            QVERIFY(lo <= v && v <= hi);
            QVERIFY2(static_cast<double>(hi - lo + 1) / static_cast<double>(v) <= 1.0 / 1000.0,
                     "bucket wider than 0.1 %");
            QCOMPARE(h.countsIndex(lo), h.countsIndex(hi));
            QVERIFY(h.countsIndex(hi + 1) == h.countsIndex(hi) + 1);
        }
        QCOMPARE(h.highestEquivalent(5000), 5003u);  // sub-buckets 4 wide between 4096 and 8191
    }

    void uniformDistribution() {
        HdrHistogram h;
        std::vector<uint64_t> raw;
        for (uint64_t v = 1; v <= 10000; ++v) {
            h.record(v);
            raw.push_back(v);
        }
        QCOMPARE(h.valueAtPercentile(50), h.highestEquivalent(5000));
        QCOMPARE(h.valueAtPercentile(90), h.highestEquivalent(9000));
        QCOMPARE(h.valueAtPercentile(99), h.highestEquivalent(9900));
        QCOMPARE(h.mean(), 5000.5);
        QVERIFY(std::fabs(h.stdev() - std::sqrt((10000.0 * 10000.0 - 1) / 12.0)) < 1e-6);
        QCOMPARE(h.min(), 1u);
        QCOMPARE(h.max(), 10000u);
        for (double p : {0.0, 1.0, 25.0, 33.3, 75.0, 99.9, 100.0}) {
            QCOMPARE(h.valueAtPercentile(p), expectedPercentile(h, raw, p));
        }
    }

    void exponentialDistributionMatchesTheRuleOnRawSamples() {
        std::mt19937_64 rng(42);
        std::exponential_distribution<double> dist(1.0 / 50000.0);  // mean 50 us in ns
        HdrHistogram h;
        std::vector<uint64_t> raw;
        for (int i = 0; i < 100000; ++i) {
            const auto v = static_cast<uint64_t>(dist(rng));
            h.record(v);
            raw.push_back(v);
        }
        for (double p : {50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
            QCOMPARE(h.valueAtPercentile(p), expectedPercentile(h, raw, p));
        }
        // Median of an exponential is mean * ln 2.
        QVERIFY(std::fabs(static_cast<double>(h.valueAtPercentile(50)) - 50000.0 * std::log(2.0)) < 1000.0);
    }

    void outlierAndMeanStdev() {
        HdrHistogram h;
        h.recordN(1000, 99);
        h.record(1000000);
        QCOMPARE(h.valueAtPercentile(99), h.highestEquivalent(1000));
        QCOMPARE(h.valueAtPercentile(99.5), h.highestEquivalent(1000000));
        QCOMPARE(h.mean(), 10990.0);
        const double expectedVar = (99.0 * 1000.0 * 1000.0 + 1e12) / 100.0 - 10990.0 * 10990.0;
        QVERIFY(std::fabs(h.stdev() - std::sqrt(expectedVar)) < 1e-3);
        QCOMPARE(h.percentileOfValue(1000), 99.0);
        QCOMPARE(h.percentileOfValue(2000000), 100.0);
    }

    void mergeEqualsRecordingEverything() {
        HdrHistogram a, b, all;
        for (uint64_t v = 0; v < 5000; v += 3) {
            a.record(v * 17);
            all.record(v * 17);
        }
        for (uint64_t v = 0; v < 7000; v += 7) {
            b.record(v * 91 + 5);
            all.record(v * 91 + 5);
        }
        a.merge(b);
        QCOMPARE(a.count(), all.count());
        QCOMPARE(a.min(), all.min());
        QCOMPARE(a.max(), all.max());
        QCOMPARE(a.mean(), all.mean());
        for (double p : {10.0, 50.0, 99.0}) QCOMPARE(a.valueAtPercentile(p), all.valueAtPercentile(p));
    }

    void mergeAcrossLayouts() {
        HdrHistogram coarse(1000000, 2);
        coarse.recordN(500, 10);
        HdrHistogram fine;
        fine.merge(coarse);
        QCOMPARE(fine.count(), 10u);
        QVERIFY(std::llabs(static_cast<long long>(fine.valueAtPercentile(50)) - 500) <= 5);
    }

    void valuesAboveTheRangeAreClamped() {
        HdrHistogram h(10000, 3);
        h.record(50000);
        QCOMPARE(h.clampedCount(), 1u);
        QCOMPARE(h.max(), 10000u);
    }

    void bytesRoundTrip() {
        HdrHistogram h;
        for (uint64_t v = 1; v < 100000; v = v * 3 + 1) h.recordN(v, v % 7 + 1);
        const QByteArray bytes = h.toBytes();
        auto back = HdrHistogram::fromBytes(bytes);
        QVERIFY(back.ok());
        QCOMPARE(back->count(), h.count());
        QCOMPARE(back->min(), h.min());
        QCOMPARE(back->max(), h.max());
        QCOMPARE(back->mean(), h.mean());
        for (double p : {1.0, 50.0, 90.0, 100.0}) QCOMPARE(back->valueAtPercentile(p), h.valueAtPercentile(p));
        QCOMPARE(back->toBytes(), bytes);
    }

    void malformedBytesAreRejected() {
        HdrHistogram h;
        h.recordN(42, 3);
        const QByteArray good = h.toBytes();
        QVERIFY(!HdrHistogram::fromBytes(QByteArray()).ok());
        QVERIFY(!HdrHistogram::fromBytes(good.left(20)).ok());
        QByteArray badMagic = good;
        badMagic[0] = 'x';
        QVERIFY(!HdrHistogram::fromBytes(badMagic).ok());
        QByteArray truncated = good.left(good.size() - 1);
        auto r = HdrHistogram::fromBytes(truncated);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, smcr::Errc::malformed);
        QByteArray extraCount = good;
        extraCount[extraCount.size() - 1] = 9;  // count no longer matches the total
        QVERIFY(!HdrHistogram::fromBytes(extraCount).ok());
    }

    void jsonCarriesTheSummary() {
        HdrHistogram h;
        for (uint64_t v = 1000; v <= 100000; v += 1000) h.record(v);
        const QJsonObject o = h.toJson(1000.0, "us", true);
        QCOMPARE(o["count"].toDouble(), 100.0);
        QCOMPARE(o["unit"].toString(), QString("us"));
        QCOMPARE(o["min"].toDouble(), 1.0);
        QCOMPARE(o["max"].toDouble(), 100.0);
        QCOMPARE(o["p50"].toDouble(), static_cast<double>(h.valueAtPercentile(50)) / 1000.0);
        QCOMPARE(o["buckets"].toArray().size(), 100);
    }
};

QTEST_APPLESS_MAIN(TestHdrHistogram)
#include "test_hdr_histogram.moc"
