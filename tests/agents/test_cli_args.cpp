#include <QTest>

#include "args.h"

using namespace smclab::cli;

class TestCliArgs : public QObject {
    Q_OBJECT
private slots:
    void sizeSuffixesFollowQperf() {
        QCOMPARE(parseSize("64K").value(), 65536u);
        QCOMPARE(parseSize("64k").value(), 64000u);
        QCOMPARE(parseSize("2kib").value(), 2048u);
        QCOMPARE(parseSize("1M").value(), 1048576u);
        QCOMPARE(parseSize("17").value(), 17u);
        QVERIFY(!parseSize("").has_value());
        QVERIFY(!parseSize("-3").has_value());
        QVERIFY(!parseSize("12x").has_value());
    }
    void durations() {
        QCOMPARE(parseDurationMs("30").value(), 30000u);
        QCOMPARE(parseDurationMs("5s").value(), 5000u);
        QCOMPARE(parseDurationMs("250ms").value(), 250u);
        QCOMPARE(parseDurationMs("2m").value(), 120000u);
        QVERIFY(!parseDurationMs("soon").has_value());
        // Fractions, as qperf users type -t 0.1.
        QCOMPARE(parseDurationMs("0.1").value(), 100u);
        QCOMPARE(parseDurationMs("1.5s").value(), 1500u);
        QCOMPARE(parseDurationMs(".25").value(), 250u);
        QCOMPARE(parseDurationMs("0.5m").value(), 30000u);
        QCOMPARE(parseDurationMs("2.0ms").value(), 2u);
        // Below a millisecond, malformed, or negative: refused, not rounded.
        QVERIFY(!parseDurationMs("0.0001").has_value());
        QVERIFY(!parseDurationMs("1.5ms").has_value());
        QVERIFY(!parseDurationMs("5.").has_value());
        QVERIFY(!parseDurationMs(".").has_value());
        QVERIFY(!parseDurationMs("1.2.3").has_value());
        QVERIFY(!parseDurationMs("-1").has_value());
        QVERIFY(!parseDurationMs("1e3").has_value());
        QVERIFY(!parseDurationMs("").has_value());
        QVERIFY(!parseDurationMs("99999999999999").has_value());
    }
    void qperfLoopGivesSeventeenSizes() {
        std::string error;
        auto loop = parseSizeLoop("msg_size:1:64K:*2", &error);
        QVERIFY2(loop.has_value(), error.c_str());
        const auto sizes = loop->values();
        QCOMPARE(sizes.size(), size_t(17));
        QCOMPARE(sizes.front(), 1u);
        QCOMPARE(sizes.back(), 65536u);
        auto additive = parseSizeLoop("10:40:10", &error);
        QVERIFY(additive.has_value());
        QCOMPARE(additive->values(), (std::vector<uint64_t>{10, 20, 30, 40}));
    }
    void badLoopsAreRejectedWithAMessage() {
        std::string error;
        QVERIFY(!parseSizeLoop("msg_size:64K:1:*2", &error).has_value());
        QVERIFY(error.find("bad loop") != std::string::npos);
        QVERIFY(!parseSizeLoop("1:2", &error).has_value());
        QVERIFY(!parseSizeLoop("1:8:*1", &error).has_value());
    }
    void cursorTakesValuesInEveryForm() {
        Args args{"-t", "5", "-c10", "--latency", "--duration=3s", "-H"};
        ArgCursor cursor(args);
        QCOMPARE(cursor.takeValue("-t").value(), std::string("5"));
        QCOMPARE(cursor.takeValue("-c").value(), std::string("10"));
        QVERIFY(cursor.takeFlag("--latency"));
        QCOMPARE(cursor.takeValue("--duration").value(), std::string("3s"));
        QVERIFY(!cursor.takeValue("-H").has_value());
        QVERIFY(!cursor.error().empty());
        // The missing value consumed the last word: nothing is read past it.
        QVERIFY(cursor.done());
        QVERIFY(cursor.peek().empty());
        QCOMPARE(cursor.unknownOption(), std::string("option -H needs a value"));
    }
    void unknownOptionNamesTheWord() {
        Args args{"--bogus"};
        ArgCursor cursor(args);
        QVERIFY(!cursor.takeValue("-t").has_value());
        QCOMPARE(cursor.unknownOption(), std::string("unknown option '--bogus'"));
    }
};

QTEST_APPLESS_MAIN(TestCliArgs)
#include "test_cli_args.moc"
