// The main window: a navigation list of the five pages (Hosts, Campaign,
// Run, Results, Export), a message bar for errors, menus with the
// keyboard shortcuts, and the window state kept across sessions.
#pragma once

#include <QMainWindow>
#include <QPointer>

class QMessageBox;

class QListWidget;
class QStackedWidget;

namespace smclab::gui {

class LabContext;
class MessageBar;
class HostsPage;
class CampaignPage;
class RunPage;
class ResultsPage;
class ExportPage;
enum class PageId;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    LabContext* lab() const { return m_lab; }
    MessageBar* messageBar() const { return m_messageBar; }
    HostsPage* hostsPage() const { return m_hostsPage; }
    CampaignPage* campaignPage() const { return m_campaignPage; }
    RunPage* runPage() const { return m_runPage; }
    ResultsPage* resultsPage() const { return m_resultsPage; }
    ExportPage* exportPage() const { return m_exportPage; }

    void showPage(PageId page);
    QWidget* page(PageId page) const;

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createPages();
    void createMenus();
    void connectPages();
    // Quitting while a campaign runs asks first (the question is
    // window-modal and named "quitConfirmation").
    void askQuitDuringRun();

    LabContext* m_lab = nullptr;
    MessageBar* m_messageBar = nullptr;
    QListWidget* m_nav = nullptr;
    QStackedWidget* m_stack = nullptr;
    HostsPage* m_hostsPage = nullptr;
    CampaignPage* m_campaignPage = nullptr;
    RunPage* m_runPage = nullptr;
    ResultsPage* m_resultsPage = nullptr;
    ExportPage* m_exportPage = nullptr;
    QPointer<QMessageBox> m_quitQuestion;
    bool m_quitAfterStop = false;
};

}  // namespace smclab::gui
