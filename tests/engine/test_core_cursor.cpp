#include <QTest>

#include "core/connection/cursor.h"
#include "core/connection/ring_span.h"

using namespace smcr::core;

// RMBE cursors: {wrap, count} with count in [0, size) (RFC 7609 4.4).
class TestCoreCursor : public QObject {
    Q_OBJECT
private slots:
    void advanceWrapsAtSize() {
        const uint32_t size = 16384;
        Cursor c{0, 16000};
        c = cursorAdvance(c, 384, size);
        QCOMPARE(c, (Cursor{1, 0}));
        c = cursorAdvance(c, 100, size);
        QCOMPARE(c, (Cursor{1, 100}));
        c = cursorAdvance(Cursor{0, 16383}, 16384, size);
        QCOMPARE(c, (Cursor{1, 16383}));
    }
    void wrapCounterRollsOverAt16Bits() {
        Cursor c = cursorAdvance(Cursor{0xFFFF, 16000}, 1000, 16384);
        QCOMPARE(c, (Cursor{0, 616}));
        QCOMPARE(cursorCompare(c, Cursor{0xFFFF, 16000}), 1);
        QCOMPARE(cursorDiff(Cursor{0xFFFF, 16000}, c, 16384), 1000u);
    }
    void cursorAtMatchesAdvance() {
        const uint32_t size = 32768;
        Cursor c;
        uint64_t offset = 0;
        for (uint32_t step : {1u, 5000u, 32767u, 32768u, 12345u, 1u}) {
            c = cursorAdvance(c, step, size);
            offset += step;
            QCOMPARE(cursorAt(offset, size), c);
        }
        QCOMPARE(cursorAt(uint64_t{0x10000} * size + 7, size), (Cursor{0, 7}));
    }
    void diffWithinAndAcrossOneWrap() {
        QCOMPARE(cursorDiff(Cursor{3, 100}, Cursor{3, 900}, 1024), 800u);
        QCOMPARE(cursorDiff(Cursor{3, 900}, Cursor{4, 100}, 1024), 224u);
        QCOMPARE(cursorDiff(Cursor{3, 100}, Cursor{4, 100}, 1024), 1024u);  // exactly one ring
        QCOMPARE(cursorDiff(Cursor{3, 100}, Cursor{3, 100}, 1024), 0u);
    }
    void backwardMovesAreIgnored() {
        QCOMPARE(cursorDiff(Cursor{3, 900}, Cursor{3, 100}, 1024), 0u);
        QCOMPARE(cursorDiff(Cursor{4, 10}, Cursor{3, 900}, 1024), 0u);
        QCOMPARE(cursorDiff(Cursor{0, 10}, Cursor{0xFFFF, 900}, 1024), 0u);
        QCOMPARE(cursorCompare(Cursor{0, 10}, Cursor{0xFFFF, 900}), 1);
    }
    void ringSpansSplitAtTheEnd() {
        RingSpans s = ringSpans(1000, 100, 1024);
        QCOMPARE(int(s.count), 2);
        QCOMPARE(s.spans[0], (RingSpan{1000, 24}));
        QCOMPARE(s.spans[1], (RingSpan{0, 76}));
        s = ringSpans(2048 + 5, 10, 1024);
        QCOMPARE(int(s.count), 1);
        QCOMPARE(s.spans[0], (RingSpan{5, 10}));
        QCOMPARE(int(ringSpans(5, 0, 1024).count), 0);
    }
};

QTEST_APPLESS_MAIN(TestCoreCursor)
#include "test_core_cursor.moc"
