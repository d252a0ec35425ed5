#include "log.h"

#include <cstdio>

#include <unistd.h>

#include <QDateTime>
#include <QtGlobal>

namespace smclab::daemon {

namespace {

void writeLine(QtMsgType level, const QMessageLogContext&, const QString& message) {
    const char* name = "info";
    switch (level) {
        case QtDebugMsg:
            name = "debug";
            break;
        case QtInfoMsg:
            name = "info";
            break;
        case QtWarningMsg:
            name = "warning";
            break;
        case QtCriticalMsg:
        case QtFatalMsg:
            name = "error";
            break;
    }
    const QByteArray stamp = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toUtf8();
    // One fprintf per line so lines from worker threads never interleave.
    std::fprintf(stderr, "%s smclab-agent[%d] %s: %s\n", stamp.constData(), static_cast<int>(::getpid()), name,
                 message.toUtf8().constData());
    std::fflush(stderr);
}

}  // namespace

void installLogHandler() {
    qInstallMessageHandler(writeLine);
}

}  // namespace smclab::daemon
