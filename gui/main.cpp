// smclab-gui: the desktop lab.
#include <smcr/version.h>

#include <QApplication>

#include "app/main_window.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("smclab"));
    QApplication::setApplicationName(QStringLiteral("smclab-gui"));
    QApplication::setApplicationVersion(QString::fromLatin1(smcr::versionString()));
    smclab::gui::MainWindow window;
    window.show();
    return QApplication::exec();
}
