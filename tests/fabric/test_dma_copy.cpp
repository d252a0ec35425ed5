// The sim's RDMA WRITE copy (engine/src/fabric/sim/dma_copy.h): every size
// and every relative alignment lands byte-exact, nothing outside the range is
// touched, and the non-temporal path (>= kDmaStreamMinBytes) is covered.
#include <cstdint>
#include <random>
#include <vector>

#include <QTest>

#include "fabric/sim/dma_copy.h"

using smcr::fabric::sim::dmaCopy;
using smcr::fabric::sim::kDmaStreamMinBytes;

class TestDmaCopy : public QObject {
    Q_OBJECT

private slots:
    void everySizeAndAlignment() {
        constexpr size_t kGuard = 64;
        std::mt19937 rng(7);
        const size_t sizes[] = {
            0,    1,    15,        16, 63, 64, 65, kDmaStreamMinBytes - 1, kDmaStreamMinBytes, kDmaStreamMinBytes + 1,
            4096, 4097, 65536 + 37};
        for (size_t n : sizes) {
            for (size_t srcOff = 0; srcOff < 16; srcOff += 3) {
                for (size_t dstOff = 0; dstOff < 16; ++dstOff) {
                    std::vector<uint8_t> src(n + 32);
                    for (auto& b : src) b = static_cast<uint8_t>(rng());
                    std::vector<uint8_t> dst(n + 2 * kGuard + 16, 0xEE);
                    uint8_t* to = dst.data() + kGuard + dstOff;
                    dmaCopy(to, src.data() + srcOff, n);
                    for (size_t i = 0; i < n; ++i) {
                        if (to[i] != src[srcOff + i]) {
                            QFAIL(qPrintable(QStringLiteral("size %1 src+%2 dst+%3: byte %4 differs")
                                                 .arg(n)
                                                 .arg(srcOff)
                                                 .arg(dstOff)
                                                 .arg(i)));
                        }
                    }
                    for (uint8_t* p = dst.data(); p < to; ++p) QCOMPARE(*p, uint8_t{0xEE});
                    for (uint8_t* p = to + n; p < dst.data() + dst.size(); ++p) QCOMPARE(*p, uint8_t{0xEE});
                }
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestDmaCopy)
#include "test_dma_copy.moc"
