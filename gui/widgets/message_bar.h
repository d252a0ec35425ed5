// A dismissable banner at the top of the window: errors and notices land
// here (and in the status bar), not only on stderr.
#pragma once

#include <QFrame>

class QLabel;

namespace smclab::gui {

class MessageBar : public QFrame {
    Q_OBJECT
public:
    enum class Level { invalid = 0, info, warning, error };

    explicit MessageBar(QWidget* parent = nullptr);

    void showMessage(Level level, const QString& text);
    QString text() const;
    Level level() const { return m_level; }

private:
    QLabel* m_label = nullptr;
    Level m_level = Level::invalid;
};

}  // namespace smclab::gui
