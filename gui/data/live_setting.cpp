#include "data/live_setting.h"

#include <QObject>

namespace smclab::gui {

const QList<LiveSetting>& liveSettings() {
    static const QList<LiveSetting> kSettings = {
        {QStringLiteral("autocorking_size"),
         QObject::tr("Autocorking size"),
         QObject::tr("Max corked bytes per push while a CDC is in flight; 0 turns autocorking off."),
         SettingKind::integer,
         {},
         0,
         1 << 20,
         4096,
         QStringLiteral(" B"),
         QJsonValue(65536)},
        {QStringLiteral("lab.cork_timer_ms"),
         QObject::tr("Cork timer"),
         QObject::tr("Restores the old TCP_CORK timer for comparison; 0 = no timer (current kernels)."),
         SettingKind::integer,
         {},
         0,
         1000,
         50,
         QStringLiteral(" ms"),
         QJsonValue(0)},
        {QStringLiteral("lab.wnd_update_limit"),
         QObject::tr("Window update limit"),
         QObject::tr("max: max(rmbe/10, SOCK_MIN_SNDBUF/2), the fixed rule; min: the old min(...) rule."),
         SettingKind::choice,
         {QStringLiteral("max"), QStringLiteral("min")},
         0,
         0,
         1,
         {},
         QJsonValue("max")},
        {QStringLiteral("lab.cq_mode"),
         QObject::tr("CQ mode"),
         QObject::tr("arm_first: arm after the first poll; drain_then_arm: poll in batches, then arm (NAPI-like)."),
         SettingKind::choice,
         {QStringLiteral("drain_then_arm"), QStringLiteral("arm_first")},
         0,
         0,
         1,
         {},
         QJsonValue("drain_then_arm")},
        {QStringLiteral("lab.tx_defer_to_owner"),
         QObject::tr("TX deferral"),
         QObject::tr("Let the application thread inside the connection push, instead of the completion context."),
         SettingKind::toggle,
         {QStringLiteral("off"), QStringLiteral("on")},
         0,
         0,
         1,
         {},
         QJsonValue("on")},
        {QStringLiteral("lab.rq_credits"),
         QObject::tr("RQ credits"),
         QObject::tr("Credit-based flow control on receive WQEs (applies to new link groups)."),
         SettingKind::toggle,
         {QStringLiteral("off"), QStringLiteral("on")},
         0,
         0,
         1,
         {},
         QJsonValue("off")},
        {QStringLiteral("lab.fast_fallback"),
         QObject::tr("Fast fallback"),
         QObject::tr("Accept fallback connections without waiting for queued SMC handshakes."),
         SettingKind::toggle,
         {QStringLiteral("off"), QStringLiteral("on")},
         0,
         0,
         1,
         {},
         QJsonValue("on")},  // the engine's default
        {QStringLiteral("lab.busy_poll_us"),
         QObject::tr("Busy poll"),
         QObject::tr("Spin this long on the CQ before arming it and blocking (like SO_BUSY_POLL)."),
         SettingKind::integer,
         {},
         0,
         10000,
         10,
         QStringLiteral(" us"),
         QJsonValue(50)},  // the engine's default
    };
    return kSettings;
}

const LiveSetting* findLiveSetting(const QString& name) {
    for (const LiveSetting& s : liveSettings()) {
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
