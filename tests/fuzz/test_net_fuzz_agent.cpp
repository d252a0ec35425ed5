// Network fuzzing of smclab-agent's control port: while a well-behaved
// controller keeps asking for status (and must get every reply), bad peers
// send malformed JSON over an authenticated WebSocket (random bytes,
// truncated and mutated messages, deep nesting, binary frames, oversized
// messages) and malformed HTTP and WebSocket frames on raw TCP. Every bad
// message must get a protocol "error" reply or the connection closed, and
// the agent must stay up and keep serving.
#include <functional>
#include <map>
#include <optional>

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkRequest>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QWebSocket>

namespace {

// Spins the event loop until pred() or timeout; returns pred().
bool waitFor(const std::function<bool()>& pred, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (!pred() && timer.elapsed() < timeoutMs) QTest::qWait(5);
    return pred();
}

// An authenticated WebSocket controller that records every message.
class Controller {
public:
    Controller() {
        QObject::connect(&socket, &QWebSocket::textMessageReceived, [this](const QString& text) {
            messages.append(QJsonDocument::fromJson(text.toUtf8()).object());
        });
        QObject::connect(&socket, &QWebSocket::disconnected, [this] { closed = true; });
    }
    bool open(quint16 port, const QByteArray& token) {
        QNetworkRequest request(QUrl(QString("ws://127.0.0.1:%1/").arg(port)));
        request.setRawHeader("Authorization", "Bearer " + token);
        socket.open(request);
        return waitFor([this] { return !messages.isEmpty() || closed; }, 10000) && !messages.isEmpty() &&
               messages.first().value("type").toString() == "hello";
    }
    // Sends text and waits for the next message (or the close).
    // Run events (a mutated start_run that stayed valid starts a run) are skipped.
    std::optional<QJsonObject> exchange(const QString& text, int timeoutMs = 5000) {
        qsizetype next = messages.size();
        socket.sendTextMessage(text);
        for (;;) {
            if (!waitFor([&] { return messages.size() > next || closed; }, timeoutMs) || messages.size() == next)
                return std::nullopt;
            const QString type = messages.at(next).value("type").toString();
            if (type != "run_state" && type != "run_ready" && type != "samples" && type != "run_result")
                return messages.at(next);
            ++next;
        }
    }

    QWebSocket socket;
    QList<QJsonObject> messages;
    bool closed = false;
};

QString compact(const QJsonObject& o) {
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

// What a raw TCP peer saw: an HTTP status line, a WebSocket close frame, a
// text frame (an error reply), or just the connection closing.
struct RawOutcome {
    QByteArray received;
    bool disconnected = false;
    bool httpError() const { return received.startsWith("HTTP/1.1 4"); }
    bool closeFrame() const { return received.contains('\x88'); }
    bool refused() const { return httpError() || closeFrame() || disconnected; }
    // A text frame back (the agent read the frame as a message and replied).
    bool textReply() const { return received.startsWith('\x81'); }
};

QByteArray upgradeRequest(quint16 port, const QByteArray& token) {
    return "GET / HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port) +
           "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
           (token.isEmpty() ? QByteArray() : "Authorization: Bearer " + token + "\r\n") + "\r\n";
}

// A client frame (RFC 6455 5.2): FIN + opcode, masked unless told otherwise.
QByteArray frame(quint8 firstByte, const QByteArray& payload, bool masked = true, qint64 claimedLength = -1) {
    QByteArray f;
    f.append(static_cast<char>(firstByte));
    const quint64 len = claimedLength >= 0 ? static_cast<quint64>(claimedLength) : static_cast<quint64>(payload.size());
    const char maskBit = masked ? '\x80' : '\x00';
    if (len < 126) {
        f.append(static_cast<char>(maskBit | static_cast<char>(len)));
    } else if (len < 65536) {
        f.append(static_cast<char>(maskBit | 126));
        f.append(static_cast<char>(len >> 8));
        f.append(static_cast<char>(len));
    } else {
        f.append(static_cast<char>(maskBit | 127));
        for (int shift = 56; shift >= 0; shift -= 8) f.append(static_cast<char>(len >> shift));
    }
    const char key[4] = {'\x12', '\x34', '\x56', '\x78'};
    if (masked) f.append(key, 4);
    for (qsizetype i = 0; i < payload.size(); ++i)
        f.append(masked ? static_cast<char>(payload[i] ^ key[i % 4]) : payload[i]);
    return f;
}

// Connects on raw TCP, optionally upgrades, sends `bytes`, and reports
// what came back within timeoutMs (stops early once refused).
RawOutcome rawPeer(quint16 port, const QByteArray& upgrade, const QByteArray& bytes, int timeoutMs = 7000) {
    QTcpSocket tcp;
    RawOutcome out;
    QObject::connect(&tcp, &QTcpSocket::disconnected, [&] { out.disconnected = true; });
    tcp.connectToHost(QHostAddress::LocalHost, port);
    if (!tcp.waitForConnected(5000)) qFatal("raw peer: connect failed");
    if (!upgrade.isEmpty()) {
        tcp.write(upgrade);
        if (!waitFor([&] { return tcp.bytesAvailable() > 0 && tcp.peek(4096).contains("\r\n\r\n"); }, 5000))
            qFatal("raw peer: no upgrade response");
        const QByteArray head = tcp.read(tcp.peek(4096).indexOf("\r\n\r\n") + 4);
        if (!head.startsWith("HTTP/1.1 101")) qFatal("raw peer: upgrade refused: %s", head.constData());
        // The agent's hello.
        waitFor([&] { return tcp.bytesAvailable() > 0; }, 5000);
        tcp.readAll();
    }
    tcp.write(bytes);
    waitFor(
        [&] {
            out.received += tcp.readAll();
            return out.refused() || out.textReply() || tcp.state() != QAbstractSocket::ConnectedState;
        },
        timeoutMs);
    out.received += tcp.readAll();
    if (tcp.state() == QAbstractSocket::UnconnectedState) out.disconnected = true;
    tcp.abort();
    return out;
}

}  // namespace

class TestNetFuzzAgent : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QProcess m_agent;
    QByteArray m_token;
    quint16 m_port = 0;

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_token = QByteArray::number(QRandomGenerator::global()->generate64(), 16);
        QFile tokenFile(m_dir.filePath("token"));
        QVERIFY(tokenFile.open(QIODevice::WriteOnly));
        tokenFile.write(m_token + "\n");
        tokenFile.close();
        QVERIFY(tokenFile.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        const QString bin = qEnvironmentVariable("SMCLAB_BIN_DIR", ".") + "/smclab-agent";
        m_agent.setProcessChannelMode(QProcess::SeparateChannels);
        m_agent.start(bin, {"--listen", "127.0.0.1:0", "--token-file", tokenFile.fileName()});
        QVERIFY2(m_agent.waitForStarted(5000), qPrintable(bin));
        const QRegularExpression listening("listening on [^\\s]*:(\\d+)");
        QByteArray out;
        QVERIFY(waitFor(
            [&] {
                out += m_agent.readAllStandardOutput();
                return listening.match(QString::fromUtf8(out)).hasMatch();
            },
            10000));
        m_port = static_cast<quint16>(listening.match(QString::fromUtf8(out)).captured(1).toUInt());
    }

    void badPeersGetErrorsWhileAGoodControllerIsServed() {
        // The well-behaved controller: a status request every 20 ms, each
        // reply checked against its id.
        Controller good;
        QVERIFY(good.open(m_port, m_token));
        qint64 nextId = 1;
        qint64 answered = 0;
        QStringList goodFailures;
        QObject::connect(&good.socket, &QWebSocket::textMessageReceived, [&](const QString& text) {
            const QJsonObject reply = QJsonDocument::fromJson(text.toUtf8()).object();
            if (reply.value("type").toString() != "status_reply" || reply.value("id").toInteger() != answered + 1) {
                goodFailures << text.left(200);
            }
            ++answered;
        });
        QTimer ticker;
        QObject::connect(&ticker, &QTimer::timeout, [&] {
            if (nextId - 1 - answered < 4)  // a few in flight at most
                good.socket.sendTextMessage(compact({{"type", "status"}, {"id", nextId++}}));
        });
        ticker.start(20);

        // 1. Malformed messages on an authenticated WebSocket: each gets an
        //    "error" with a code (or, for a mutation that stayed valid, its reply).
        Controller bad;
        QVERIFY(bad.open(m_port, m_token));
        QRandomGenerator rng(0x5eed);
        const QStringList valid{
            compact({{"type", "status"}, {"id", 7}}), compact({{"type", "stop_run"}, {"id", 8}, {"run_id", "nope"}}),
            compact({{"type", "set_settings"}, {"id", 9}, {"run_id", "nope"}, {"settings", QJsonObject{{"a", 1}}}}),
            compact({{"type", "start_run"},
                     {"id", 10},
                     {"run_id", "r1"},
                     {"role", "client"},
                     {"workload", "tcp_bw"},
                     {"transport", "tcp"},
                     {"peer", "127.0.0.1:1"},
                     {"duration_ms", 99}}),  // one below the minimum: never starts
        };
        QStringList inputs;
        for (int i = 0; i < 40; ++i) {  // random bytes as text
            QByteArray b(1 + static_cast<int>(rng.bounded(300)), Qt::Uninitialized);
            for (char& c : b) c = static_cast<char>(rng.bounded(256));
            inputs << QString::fromLatin1(b);
        }
        for (const QString& v : valid) {
            for (int cut = 1; cut < v.size(); cut += 1 + v.size() / 12)  // truncated
                inputs << v.left(cut);
            for (int i = 0; i < 15; ++i) {  // mutated
                QString m = v;
                for (int f = 0; f < 1 + static_cast<int>(rng.bounded(4)); ++f)
                    m[static_cast<int>(rng.bounded(m.size()))] = QChar(static_cast<char16_t>(rng.bounded(32, 127)));
                inputs << m;
            }
        }
        inputs << QString(200000, '[') << QString(100000, '{') + QString(100000, '}')
               << "{\"type\":\"status\",\"id\":" + QString(5000, '9') + "}"
               << "{\"type\":\"status\",\"x\":\"" + QString(1 << 19, 'x') + "\"}" << QString() << "null"
               << "\"start_run\""
               << "{\"type\":\"status\",\"type\":\"stop_run\"}" << QString::fromUtf8("\xed\xa0\x80");
        std::map<QString, int> codes;
        int replies = 0;
        for (const QString& text : inputs) {
            const auto reply = bad.exchange(text);
            QVERIFY2(reply.has_value(), qPrintable("no reply to: " + text.left(120)));
            const QString type = reply->value("type").toString();
            if (type == "error") {
                QVERIFY2(!reply->value("code").toString().isEmpty() && !reply->value("message").toString().isEmpty(),
                         qPrintable(compact(*reply)));
                ++codes[reply->value("code").toString()];
            } else {
                // Only a still-valid message may get a normal reply.
                QVERIFY2(type == "status_reply" || type == "run_stopping" || type == "run_accepted",
                         qPrintable(compact(*reply)));
                ++replies;
            }
        }
        // Binary frames and an over-limit message (> 1 MiB).
        const qsizetype before = bad.messages.size();
        bad.socket.sendBinaryMessage(QByteArray(100, 'x'));
        QVERIFY(waitFor([&] { return bad.messages.size() > before; }, 5000));
        QCOMPARE(bad.messages.at(before).value("code").toString(), QString("bad_json"));
        bad.socket.sendTextMessage(QString((1 << 20) + 10, 'a'));
        QVERIFY2(waitFor([&] { return bad.closed || bad.messages.size() > before + 1; }, 10000),
                 "an oversized message got neither an error nor a close");
        QString line = "error codes:";
        for (const auto& [code, n] : codes) line += QString(" %1=%2").arg(code).arg(n);
        qInfo("%lld malformed messages: %s; %d still-valid replies", static_cast<long long>(inputs.size()),
              qPrintable(line), replies);

        // 2. Raw TCP: bad HTTP before the upgrade (at most two failed logins,
        //    below the limiter's threshold), then bad WebSocket frames.
        const QByteArray up = upgradeRequest(m_port, m_token);
        struct RawCase {
            const char* name;
            QByteArray upgrade;
            QByteArray bytes;
        };
        QByteArray junk(3000, Qt::Uninitialized);
        for (char& c : junk) c = static_cast<char>(rng.bounded(256));
        QByteArray junkFrames = junk;
        junkFrames[0] = static_cast<char>(junkFrames[0] | 0x70);  // reserved bits set: a protocol error
        const QList<RawCase> cases{
            {"random bytes then CRLFCRLF", {}, junk + "\r\n\r\n"},
            {"no token", {}, upgradeRequest(m_port, {})},
            {"oversized request head", {}, "GET / HTTP/1.1\r\nX: " + QByteArray(20000, 'a') + "\r\n\r\n"},
            {"unmasked frame", up, frame(0x81, "{\"type\":\"status\"}", false)},
            {"reserved opcode", up, frame(0x83, "abc")},
            {"continuation without start", up, frame(0x80, "abc")},
            {"2^62-byte length", up, frame(0x81, "x", true, qint64{1} << 62)},
            {"invalid UTF-8 text", up, frame(0x81, QByteArray("{\"type\":\"\xff\xfe\"}"))},
            {"oversized control frame", up, frame(0x89, QByteArray(200, 'p'))},
            {"random bytes after upgrade", up, junkFrames},
        };
        for (const RawCase& c : cases) {
            const RawOutcome outcome = rawPeer(m_port, c.upgrade, c.bytes);
            qInfo("%s: %s%s", c.name, outcome.httpError() ? qPrintable("HTTP " + outcome.received.left(12)) : "",
                  outcome.closeFrame() ? "close frame" : (outcome.disconnected ? " closed" : ""));
            // RFC 6455 5.1 says a server must close on an unmasked client
            // frame; Qt may read it instead, and then the agent answers it.
            const bool readIt = QByteArray(c.name) == "unmasked frame" && outcome.textReply();
            QVERIFY2(outcome.refused() || readIt, c.name);
        }
        // A truncated frame, then the peer goes away: nothing to observe but
        // that the agent carries on (checked below).
        rawPeer(m_port, up, frame(0x81, QByteArray(1000, 'a')).left(500), 300);

        // The good controller was served all along, and still is.
        const qint64 sentBefore = nextId - 1;
        QVERIFY(waitFor([&] { return answered >= sentBefore + 5; }, 10000));
        ticker.stop();
        QVERIFY(waitFor([&] { return answered == nextId - 1; }, 5000));
        QVERIFY2(goodFailures.isEmpty(), qPrintable(goodFailures.value(0)));
        QVERIFY2(answered >= 20, qPrintable(QString("only %1 status replies").arg(answered)));
        QVERIFY(!good.closed);
        QCOMPARE(m_agent.state(), QProcess::Running);
        Controller fresh;
        QVERIFY(fresh.open(m_port, m_token));
        const auto status = fresh.exchange(compact({{"type", "status"}, {"id", 1}}));
        QVERIFY(status.has_value());
        QCOMPARE(status->value("type").toString(), QString("status_reply"));
    }

    void cleanupTestCase() {
        m_agent.terminate();
        QVERIFY(m_agent.waitForFinished(10000));
        QCOMPARE(m_agent.exitStatus(), QProcess::NormalExit);
        QCOMPARE(m_agent.exitCode(), 0);
    }
};

QTEST_GUILESS_MAIN(TestNetFuzzAgent)
#include "test_net_fuzz_agent.moc"
