// What the pages share: one place to report errors and notices (shown in
// the window's message bar and status bar) and the services every page uses.
#pragma once

#include <QObject>

namespace smclab::gui {

class LabContext : public QObject {
    Q_OBJECT
public:
    explicit LabContext(QObject* parent = nullptr);

    void reportError(const QString& text) { emit errorReported(text); }
    void reportInfo(const QString& text) { emit infoReported(text); }

signals:
    void errorReported(const QString& text);
    void infoReported(const QString& text);
};

}  // namespace smclab::gui
