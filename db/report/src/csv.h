// RFC 4180 fields: quoting on write, splitting on read. Private to the
// report module.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace smclab::report::csv {

QString quote(const QString& field);
QString line(const QStringList& fields);
// Splits a whole document into records; quoted fields may hold commas,
// quotes ("") and newlines. Returns false on an unterminated quote.
bool parse(const QString& text, QList<QStringList>* records);

}  // namespace smclab::report::csv
