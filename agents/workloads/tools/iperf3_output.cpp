#include "iperf3_output.h"

#include <string>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

namespace smclab::workloads {

namespace {

smcr::Unexpected bad(const std::string& why) {
    return smcr::fail(smcr::Errc::malformed, "iperf3 JSON: " + why);
}

// A number member that must be there.
std::optional<double> need(const QJsonObject& object, const char* key) {
    const QJsonValue v = object.value(QLatin1String(key));
    if (!v.isDouble()) return std::nullopt;
    return v.toDouble();
}

}  // namespace

smcr::Result<Iperf3Report> parseIperf3Json(std::string_view text) {
    QJsonParseError parseError{};
    const QJsonDocument doc =
        QJsonDocument::fromJson(QByteArray(text.data(), static_cast<qsizetype>(text.size())), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return bad("does not parse at offset " + std::to_string(parseError.offset) + ": " +
                   parseError.errorString().toStdString() + (text.empty() ? " (empty)" : " (cut off or garbled?)"));
    }
    if (!doc.isObject()) return bad("the top level is not an object");
    const QJsonObject root = doc.object();
    if (root.contains(QLatin1String("error"))) {
        return smcr::fail(smcr::Errc::connectionRefused,
                          "iperf3 reported an error: " + root.value(QLatin1String("error")).toString().toStdString());
    }
    const QJsonObject start = root.value(QLatin1String("start")).toObject();
    const QJsonObject end = root.value(QLatin1String("end")).toObject();
    const QJsonObject testStart = start.value(QLatin1String("test_start")).toObject();
    const QJsonObject sent = end.value(QLatin1String("sum_sent")).toObject();
    const QJsonObject received = end.value(QLatin1String("sum_received")).toObject();
    if (testStart.isEmpty()) return bad("no start.test_start");
    if (sent.isEmpty() || received.isEmpty()) return bad("no end.sum_sent / end.sum_received (cut off?)");
    const auto sentBps = need(sent, "bits_per_second");
    const auto receivedBps = need(received, "bits_per_second");
    const auto receivedBytes = need(received, "bytes");
    const auto seconds = need(received, "seconds");
    if (!sentBps || !receivedBps || !receivedBytes || !seconds) {
        return bad("end sums lack bits_per_second, bytes or seconds");
    }
    Iperf3Report report;
    QJsonObject& s = report.summary;
    s.insert("bw_MBps", *receivedBps / 8e6);
    s.insert("sent_bits_per_sec", *sentBps);
    s.insert("received_bits_per_sec", *receivedBps);
    s.insert("bytes", *receivedBytes);
    s.insert("seconds", *seconds);
    if (const auto r = need(sent, "retransmits")) s.insert("retransmits", *r);
    const QJsonObject cpu = end.value(QLatin1String("cpu_utilization_percent")).toObject();
    if (const auto v = need(cpu, "host_total")) s.insert("cpu_local_pct", *v);
    if (const auto v = need(cpu, "remote_total")) s.insert("cpu_remote_pct", *v);
    const QJsonObject reverse = end.value(QLatin1String("sum_received_bidir_reverse")).toObject();
    if (!reverse.isEmpty()) {
        const auto v = need(reverse, "bits_per_second");
        if (!v) return bad("end.sum_received_bidir_reverse lacks bits_per_second");
        s.insert("reverse_bw_MBps", *v / 8e6);
    }
    s.insert("version", start.value(QLatin1String("version")).toString());
    s.insert("protocol", testStart.value(QLatin1String("protocol")).toString());
    s.insert("streams", testStart.value(QLatin1String("num_streams")).toDouble());
    s.insert("reverse", testStart.value(QLatin1String("reverse")).toDouble());
    for (const QJsonValue& entry : root.value(QLatin1String("intervals")).toArray()) {
        const QJsonObject sum = entry.toObject().value(QLatin1String("sum")).toObject();
        const auto endSec = need(sum, "end");
        const auto secs = need(sum, "seconds");
        const auto bytes = need(sum, "bytes");
        const auto bps = need(sum, "bits_per_second");
        if (!endSec || !secs || !bytes || !bps)
            return bad("an interval's sum lacks end, seconds, bytes or bits_per_second");
        report.intervals.push_back({*endSec, *secs, *bytes, *bps});
    }
    return report;
}

}  // namespace smclab::workloads
