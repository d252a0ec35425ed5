#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include <QTest>

#include "connection_threads.h"

using smclab::workloads::ConnectionThreads;

class TestConnectionThreads : public QObject {
    Q_OBJECT
private slots:
    // A server that serves one connection after another keeps only the
    // threads still running, not one per connection it ever served.
    void finishedThreadsAreJoinedAsNewOnesStart() {
        ConnectionThreads threads;
        std::atomic<int> served{0};
        size_t most = 0;
        for (int i = 0; i < 500; ++i) {
            threads.start([&served] { served.fetch_add(1); });
            most = std::max(most, threads.running());
            // The next connection arrives after this one was served.
            while (served.load() < i + 1) std::this_thread::yield();
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        threads.joinAll();
        QCOMPARE(served.load(), 500);
        QCOMPARE(threads.running(), size_t(0));
        QVERIFY2(most <= 50,  // 500 without the joins; a few on a loaded host
                 qPrintable(QString("up to %1 threads kept").arg(most)));
    }
    // Threads still running are not joined early: each finishes its work.
    void runningThreadsAreKeptUntilTheyFinish() {
        ConnectionThreads threads;
        std::atomic<bool> release{false};
        std::atomic<int> finished{0};
        for (int i = 0; i < 8; ++i) {
            threads.start([&] {
                while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                finished.fetch_add(1);
            });
        }
        QCOMPARE(threads.running(), size_t(8));
        QCOMPARE(finished.load(), 0);
        release.store(true);
        threads.joinAll();
        QCOMPARE(finished.load(), 8);
    }
};

QTEST_APPLESS_MAIN(TestConnectionThreads)
#include "test_connection_threads.moc"
