#include "data/settings_text.h"

#include <QObject>
#include <QStringList>

namespace smclab::gui {

QString settingsToText(const QJsonObject& settings) {
    QStringList parts;
    for (auto it = settings.begin(); it != settings.end(); ++it) {
        QString value;
        if (it->isBool()) {
            value = it->toBool() ? QStringLiteral("true") : QStringLiteral("false");
        } else if (it->isDouble()) {
            const double d = it->toDouble();
            value = d == static_cast<double>(it->toInteger()) ? QString::number(it->toInteger()) : QString::number(d);
        } else {
            value = it->toString();
        }
        parts.append(QStringLiteral("%1=%2").arg(it.key(), value));
    }
    return parts.join(QStringLiteral(", "));
}

std::optional<QJsonObject> settingsFromText(const QString& text, QString* error) {
    QJsonObject out;
    const QStringList entries = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString& raw : entries) {
        const QString entry = raw.trimmed();
        if (entry.isEmpty()) continue;
        const qsizetype eq = entry.indexOf(QLatin1Char('='));
        if (eq <= 0) {
            if (error) *error = QObject::tr("'%1' is not name=value").arg(entry);
            return std::nullopt;
        }
        const QString name = entry.left(eq).trimmed();
        const QString value = entry.mid(eq + 1).trimmed();
        if (value.isEmpty()) {
            if (error) *error = QObject::tr("'%1' has no value").arg(name);
            return std::nullopt;
        }
        bool isInt = false;
        const qint64 number = value.toLongLong(&isInt);
        if (isInt) {
            out.insert(name, number);
        } else if (value == QLatin1String("true") || value == QLatin1String("false")) {
            out.insert(name, value == QLatin1String("true"));
        } else {
            out.insert(name, value);
        }
    }
    return out;
}

}  // namespace smclab::gui
