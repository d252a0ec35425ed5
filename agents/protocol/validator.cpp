#include "protocol/validator.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>

#include "protocol/field_reader.h"

namespace smclab::protocol {

namespace {

const QRegularExpression& runIdPattern() {
    static const QRegularExpression pattern("^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$");
    return pattern;
}

// A hyphen inside, for the tool workload nginx-wrk.
const QRegularExpression& workloadPattern() {
    static const QRegularExpression pattern("^[a-z][a-z0-9_-]{0,31}$");
    return pattern;
}

void readEndpoint(FieldReader& reader, const QString& key, Endpoint* out) {
    const QString text = reader.optionalString(key, 64, {});
    if (!reader.ok() || text.isEmpty()) return;
    QString why;
    auto endpoint = parseEndpoint(text, &why);
    if (!endpoint) {
        reader.fail(errc::kBadField, key, why);
        return;
    }
    *out = *endpoint;
}

void readMap(FieldReader& reader, const QString& key, QJsonObject* out) {
    *out = reader.optionalObject(key);
    if (!reader.ok()) return;
    const ProtocolError error = checkScalarMap(*out, reader.path(key), kMaxMapEntries);
    if (error.isError()) reader.failWith(error);
}

StartRun readStartRun(FieldReader& reader) {
    StartRun run;
    run.runId = reader.requireString("run_id", kMaxRunIdChars, &runIdPattern());
    run.role = smcr::sideFromName(reader.requireEnum("role", {"server", "client"}).toStdString());
    run.workload = reader.requireString("workload", 32, &workloadPattern());
    run.transport = reader.requireEnum("transport", knownTransports(), errc::kUnknownTransport);
    readMap(reader, "params", &run.params);
    readMap(reader, "settings", &run.settings);
    readMap(reader, "transport_options", &run.transportOptions);
    run.durationMs = reader.requireInt("duration_ms", kMinDurationMs, kMaxDurationMs);
    run.sampleIntervalMs =
        reader.optionalInt("sample_interval_ms", kMinSampleIntervalMs, kMaxSampleIntervalMs, kDefaultSampleIntervalMs);
    if (reader.ok()) run.warmupMs = reader.optionalInt("warmup_ms", 0, run.durationMs - 1, -1);
    if (!reader.ok()) return run;
    if (run.role == smcr::Side::client) {
        if (!reader.has("peer")) reader.fail(errc::kMissingField, "peer", "is required for role client");
        readEndpoint(reader, "peer", &run.peer);
        if (reader.ok() && run.peer.port == 0) reader.fail(errc::kBadField, "peer", "port 0 cannot be connected to");
        if (reader.has("listen")) reader.fail(errc::kBadField, "listen", "is only for role server");
    } else {
        if (reader.has("peer")) reader.fail(errc::kBadField, "peer", "is only for role client");
        run.listen.address = QHostAddress(QHostAddress::AnyIPv4);
        readEndpoint(reader, "listen", &run.listen);
    }
    return run;
}

}  // namespace

const QStringList& knownTransports() {
    static const QStringList names{"tcp", "smcr", "ksmc"};
    return names;
}

ControllerMessage parseControllerMessage(const QByteArray& text) {
    ControllerMessage message;
    if (text.size() > kMaxMessageBytes) {
        message.error = makeError(errc::kBadJson, {}, QString("message exceeds %1 bytes").arg(kMaxMessageBytes));
        return message;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        message.error =
            makeError(errc::kBadJson, {},
                      QString("not JSON: %1 at offset %2").arg(parseError.errorString()).arg(parseError.offset));
        return message;
    }
    if (!document.isObject()) {
        message.error = makeError(errc::kBadJson, {}, "a message must be a JSON object");
        return message;
    }
    const QJsonObject object = document.object();
    FieldReader reader(object);
    message.requestId = reader.optionalInt("id", 0, kMaxRequestId, -1);
    if (!reader.ok()) {
        message.requestId = -1;
        message.error = reader.error();
        return message;
    }
    if (!object.value("type").isString()) {
        message.error = makeError(errc::kBadMessage, "type", "type: a message needs a string \"type\"");
        return message;
    }
    reader.accept("type");
    const QString type = object.value("type").toString();
    if (type == type::kStartRun) {
        message.body = readStartRun(reader);
    } else if (type == type::kSetSettings) {
        SetSettings set;
        set.runId = reader.requireString("run_id", kMaxRunIdChars, &runIdPattern());
        if (reader.ok() && !reader.has("settings")) reader.fail(errc::kMissingField, "settings", "is required");
        readMap(reader, "settings", &set.settings);
        if (reader.ok() && set.settings.isEmpty()) reader.fail(errc::kBadField, "settings", "must not be empty");
        message.body = set;
    } else if (type == type::kStopRun) {
        message.body = StopRun{reader.requireString("run_id", kMaxRunIdChars, &runIdPattern())};
    } else if (type == type::kStatus) {
        message.body = StatusRequest{};
    } else {
        message.error = makeError(errc::kBadMessage, "type", QString("type: unknown message type '%1'").arg(type));
        return message;
    }
    if (!reader.finish()) message.error = reader.error();
    return message;
}

}  // namespace smclab::protocol
