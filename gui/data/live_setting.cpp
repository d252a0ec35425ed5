#include "data/live_setting.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <smcr/settings.h>

#include <QCoreApplication>

namespace smclab::gui {

namespace {

// What the panel adds to the engine's row: its label, the spin box's step and unit.
struct Presentation {
    const char* name;
    const char* label;
    int step;
    const char* unit;
};

// The run page's switches, in the panel's order. Bounds, choices, defaults
// and help are the engine's own (smcr::allSettings), so the panel cannot
// offer a value the engine refuses, or stop short of one it takes.
constexpr Presentation kPanel[] = {
    {"autocorking_size", QT_TRANSLATE_NOOP("LiveSetting", "Autocorking size"), 4096, " B"},
    {"lab.cork_timer_ms", QT_TRANSLATE_NOOP("LiveSetting", "Cork timer"), 50, " ms"},
    {"lab.wnd_update_limit", QT_TRANSLATE_NOOP("LiveSetting", "Window update limit"), 1, ""},
    {"lab.cq_mode", QT_TRANSLATE_NOOP("LiveSetting", "CQ mode"), 1, ""},
    {"lab.tx_defer_to_owner", QT_TRANSLATE_NOOP("LiveSetting", "TX deferral"), 1, ""},
    {"lab.rq_credits", QT_TRANSLATE_NOOP("LiveSetting", "RQ credits"), 1, ""},
    {"lab.fast_fallback", QT_TRANSLATE_NOOP("LiveSetting", "Fast fallback"), 1, ""},
    {"lab.busy_poll_us", QT_TRANSLATE_NOOP("LiveSetting", "Busy poll"), 10, " us"},
};

const smcr::SettingInfo* engineSetting(const char* name) {
    for (const smcr::SettingInfo& info : smcr::allSettings())
        if (std::strcmp(info.name, name) == 0) return &info;
    return nullptr;
}

int clampToInt(uint64_t value) {
    return static_cast<int>(std::min<uint64_t>(value, std::numeric_limits<int>::max()));
}

LiveSetting fromEngine(const Presentation& shown, const smcr::SettingInfo& info) {
    LiveSetting s;
    s.name = QString::fromLatin1(info.name);
    s.label = QCoreApplication::translate("LiveSetting", shown.label);
    s.help = QString::fromUtf8(info.help);
    s.step = shown.step;
    s.unit = QString::fromLatin1(shown.unit);
    switch (info.type) {
        case smcr::SettingType::number:
            s.kind = SettingKind::integer;
            s.minimum = clampToInt(info.minValue);
            s.maximum = clampToInt(info.maxValue);
            s.defaultValue = QJsonValue(clampToInt(info.defaultValue));
            break;
        case smcr::SettingType::flag:
            // The spelling the agent and the presets use: off|on.
            s.kind = SettingKind::toggle;
            s.choices = {QStringLiteral("off"), QStringLiteral("on")};
            s.defaultValue = QJsonValue(s.choices.value(info.defaultValue != 0 ? 1 : 0));
            break;
        case smcr::SettingType::choice:
            s.kind = SettingKind::choice;
            for (const char* name : info.names) s.choices << QString::fromLatin1(name);
            s.defaultValue = QJsonValue(s.choices.value(static_cast<qsizetype>(info.defaultValue)));
            break;
        case smcr::SettingType::text:
        case smcr::SettingType::invalid:
            break;  // not a run-time switch
    }
    return s;
}

}  // namespace

const QList<LiveSetting>& liveSettings() {
    static const QList<LiveSetting> kSettings = [] {
        QList<LiveSetting> out;
        for (const Presentation& shown : kPanel) {
            const smcr::SettingInfo* info = engineSetting(shown.name);
            // A name the engine does not know is a bug here, caught by the panel's tests.
            if (info != nullptr) out << fromEngine(shown, *info);
        }
        return out;
    }();
    return kSettings;
}

const LiveSetting* findLiveSetting(const QString& name) {
    return findSetting(liveSettings(), name);
}

const QList<LiveSetting>& kernelLiveSettings() {
    // Bounds and defaults as Linux's net/smc/smc_sysctl.c has them: buffers
    // of 16 KiB at least, autocorking up to what a send buffer holds.
    static const QList<LiveSetting> kSettings = [] {
        auto integer = [](const char* name, const char* label, const char* help, int minimum, int maximum, int step,
                          int defaultValue) {
            LiveSetting s;
            s.name = QString::fromLatin1(name);
            s.label = QCoreApplication::translate("LiveSetting", label);
            s.help = QCoreApplication::translate("LiveSetting", help);
            s.kind = SettingKind::integer;
            s.minimum = minimum;
            s.maximum = maximum;
            s.step = step;
            s.unit = QStringLiteral(" B");
            s.defaultValue = QJsonValue(defaultValue);
            return s;
        };
        constexpr int kMaxBuffer = 64 << 20;
        return QList<LiveSetting>{
            integer("autocorking_size", QT_TRANSLATE_NOOP("LiveSetting", "Autocorking size (net.smc)"),
                    QT_TRANSLATE_NOOP("LiveSetting",
                                      "net.smc.autocorking_size: bytes the kernel's SMC corks small sends "
                                      "into while a send is in flight; 0 turns autocorking off. Acts at once."),
                    0, kMaxBuffer, 4096, 64 << 10),
            integer("wmem", QT_TRANSLATE_NOOP("LiveSetting", "Send buffer (net.smc.wmem)"),
                    QT_TRANSLATE_NOOP("LiveSetting",
                                      "net.smc.wmem: the send buffer of new SMC connections (the first "
                                      "connections of a run keep theirs)."),
                    16 << 10, kMaxBuffer, 16 << 10, 256 << 10),
            integer("rmem", QT_TRANSLATE_NOOP("LiveSetting", "Receive buffer (net.smc.rmem)"),
                    QT_TRANSLATE_NOOP("LiveSetting",
                                      "net.smc.rmem: the receive buffer (RMB) of new SMC connections (the "
                                      "first connections of a run keep theirs)."),
                    16 << 10, kMaxBuffer, 16 << 10, 128 << 10),
        };
    }();
    return kSettings;
}

const LiveSetting* findSetting(const QList<LiveSetting>& settings, const QString& name) {
    for (const LiveSetting& s : settings) {
        if (s.name == name) return &s;
    }
    return nullptr;
}

QString settingChangeLabel(const QString& name, const QJsonValue& value) {
    QString text;
    if (value.isString()) {
        text = value.toString();
    } else if (value.isBool()) {
        text = value.toBool() ? QStringLiteral("on") : QStringLiteral("off");
    } else {
        text = QString::number(value.toInteger());
    }
    QString shortName = name;
    if (shortName.startsWith(QLatin1String("lab."))) shortName = shortName.mid(4);
    return QStringLiteral("%1=%2").arg(shortName, text);
}

}  // namespace smclab::gui
