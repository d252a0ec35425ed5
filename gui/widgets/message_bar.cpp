#include "widgets/message_bar.h"

#include <algorithm>

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace smclab::gui {

MessageBar::MessageBar(QWidget* parent) : QFrame(parent) {
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    m_label = new QLabel(this);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_label, 1);
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("\u2715"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Dismiss"));
    layout->addWidget(close);
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    if (parent != nullptr) parent->installEventFilter(this);
    hide();
}

bool MessageBar::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parentWidget() && event->type() == QEvent::Resize) place();
    return QFrame::eventFilter(watched, event);
}

void MessageBar::place() {
    QWidget* parent = parentWidget();
    if (parent == nullptr) return;
    constexpr int kMarginPx = 8;
    const int width = std::max(200, parent->width() - 2 * kMarginPx);
    const int height = std::max(sizeHint().height(), layout()->heightForWidth(width));
    setGeometry(kMarginPx, parent->height() - height - kMarginPx, width, height);
    raise();
}

void MessageBar::showMessage(Level level, const QString& text) {
    m_level = level;
    m_label->setText(text);
    QColor background;
    switch (level) {
        case Level::error:
            background = QColor(0xf8, 0xd7, 0xda);
            break;
        case Level::warning:
            background = QColor(0xff, 0xf3, 0xcd);
            break;
        case Level::info:
        case Level::invalid:
            background = QColor(0xd1, 0xec, 0xf1);
            break;
    }
    QPalette pal = palette();
    pal.setColor(QPalette::Window, background);
    pal.setColor(QPalette::WindowText, Qt::black);
    setPalette(pal);
    show();
    place();
}

QString MessageBar::text() const {
    return m_label->text();
}

}  // namespace smclab::gui
