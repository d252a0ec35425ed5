// Adds an agent: its ADDR:PORT, the token (typed, or a token file that is
// remembered instead of the token), and TLS. OK is enabled only when the
// entry is complete; the hint label says what is missing.
#pragma once

#include <QDialog>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace smclab::gui {

class AddHostDialog : public QDialog {
    Q_OBJECT
public:
    explicit AddHostDialog(QWidget* parent = nullptr);

    QString address() const;
    QString token() const;
    QString tokenFile() const;
    bool tls() const;
    void setAddress(const QString& address);
    void setToken(const QString& token);
    QString hintText() const;

private:
    void updateWidgets();

    QLineEdit* m_address = nullptr;
    QLineEdit* m_token = nullptr;
    QLineEdit* m_tokenFile = nullptr;
    QCheckBox* m_tls = nullptr;
    QLabel* m_hint = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

}  // namespace smclab::gui
