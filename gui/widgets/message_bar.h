// A dismissable banner for errors and notices (they also go to the status
// bar, not only to stderr). It floats over the bottom edge of its parent
// instead of taking a row in a layout, so showing a message never moves the
// controls under the user's pointer.
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

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void place();

    QLabel* m_label = nullptr;
    Level m_level = Level::invalid;
};

}  // namespace smclab::gui
