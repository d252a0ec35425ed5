// A lab for a team from the desktop: the Results page's database dialog
// (an SQLite file, or a PostgreSQL server with the password from
// PGPASSWORD/~/.pgpass, never stored) remembered in the app settings and
// used for the list; and the Hosts page's "Deploy agent..." running the lab
// library's SSH deploy with its steps and errors shown, and adding what the
// shared lab file records. The PostgreSQL case runs on a server this test starts
// (tests/db/postgres_server.h) and is skipped, saying so, without the
// PostgreSQL binaries.
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "app/app_settings.h"
#include "app/lab_context.h"
#include "data/capabilities_text.h"
#include "dialogs/database_dialog.h"
#include "dialogs/deploy_dialog.h"
#include "lab_file.h"
#include "models/host_table_model.h"
#include "orchestrator/runner_lock.h"
#include "pages/hosts_page.h"
#include "pages/results_page.h"
#include "postgres_server.h"
#include "seed_store.h"
#include "smclab/db/database_path.h"
#include "smclab/db/result_store.h"

using namespace smclab;
using namespace smclab::gui;

class TestLabDialogs : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void databaseDialogComposesWhatTheCliTakes();
    void resultsSwitchToAnotherSqliteFile();
    void resultsOnAPostgresServer();
    void deployRunsTheLabLibraryAndShowsItsError();
    void deployedHostsComeFromTheLabFile();
    void vmLabButtonsRunTheLabLibrary();
    void hostsPageSaysWhatItCannotDo();
    void databaseDialogStates();

private:
    QTemporaryDir m_dir;
    LabContext* m_lab = nullptr;
    QStringList m_errors;
};

void TestLabDialogs::initTestCase() {
    QVERIFY(m_dir.isValid());
    testing::isolateSettings(m_dir.filePath(QStringLiteral("settings")));
    m_lab = new LabContext(this);
    m_lab->setDatabasePath(m_dir.filePath(QStringLiteral("first.db")));
    connect(m_lab, &LabContext::errorReported, this, [this](const QString& text) { m_errors << text; });
}

void TestLabDialogs::databaseDialogComposesWhatTheCliTakes() {
    DatabaseDialog dialog;
    dialog.setPostgres(QStringLiteral("lab"), QStringLiteral("db.example"), 5432, QStringLiteral("results"));
    QCOMPARE(dialog.location(), QStringLiteral("postgresql://lab@db.example/results"));
    QVERIFY2(dialog.hintText().contains(QStringLiteral("db.example")), qPrintable(dialog.hintText()));
    dialog.setPostgres(QStringLiteral("lab"), QStringLiteral("::1"), 6543, QStringLiteral("results"));
    QCOMPARE(dialog.location(), QStringLiteral("postgresql://lab@[::1]:6543/results"));
    // What --db refuses, the dialog refuses, with the parser's reason.
    dialog.setPostgres(QString(), QStringLiteral("db.example"), 5432, QStringLiteral("results"));
    QVERIFY(!dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
    QVERIFY(!dialog.hintText().isEmpty());
    // A URL read back fills the fields; a file stays a file.
    dialog.setLocation(QStringLiteral("postgresql://me@10.0.0.5:5433/team"));
    QVERIFY(dialog.isPostgres());
    QCOMPARE(dialog.location(), QStringLiteral("postgresql://me@10.0.0.5:5433/team"));
    dialog.setLocation(m_dir.filePath(QStringLiteral("x.db")));
    QVERIFY(!dialog.isPostgres());
    QCOMPARE(dialog.location(), m_dir.filePath(QStringLiteral("x.db")));
}

void TestLabDialogs::resultsSwitchToAnotherSqliteFile() {
    const QString second = m_dir.filePath(QStringLiteral("second.db"));
    QVERIFY(testing::seedStore(second, QStringLiteral("in the second file")) > 0);
    ResultsPage page(m_lab);
    QCOMPARE(page.campaignTree()->topLevelItemCount(), 0);
    page.setDatabase(second);
    QCOMPARE(AppSettings::databasePath(), second);  // remembered for the next start
    QCOMPARE(page.campaignTree()->topLevelItemCount(), 1);
    QVERIFY(page.campaignTree()->topLevelItem(0)->text(0).contains(QStringLiteral("in the second file")));
    QCOMPARE(page.databaseText(), second);
}

void TestLabDialogs::resultsOnAPostgresServer() {
    if (dbtest::PostgresServer::binDir().isEmpty())
        QSKIP("PostgreSQL is not installed (packaging/install-deps.sh installs it)");
    dbtest::PostgresServer server;
    QString why;
    QVERIFY2(server.start(&why), qPrintable(why));
    QVERIFY2(server.createDatabase(QStringLiteral("gui_results"), &why), qPrintable(why));
    const QString url = server.url(QStringLiteral("gui_results"));
    // The password comes from the environment, as libpq reads it; it is in no setting.
    qputenv("PGPASSWORD", dbtest::PostgresServer::password().toUtf8());
    // Another controller's store: it created the campaign and says it runs it.
    auto runner = db::ResultStore::open(url);
    QVERIFY2(runner, runner ? "" : runner.error().message.c_str());
    db::NewCampaign campaign;
    campaign.name = QStringLiteral("on the team server");
    campaign.cells = {{QStringLiteral("tcp_bw"), QStringLiteral("tcp"), QStringLiteral("TCP"), 64, 0}};
    const qint64 id = (*runner)->createCampaign(campaign).valueOr(0);
    QVERIFY(id > 0);
    QVERIFY((*runner)->updateCampaignStatus(id, db::CampaignStatus::running));
    DatabaseDialog dialog;
    dialog.setPostgres(dbtest::PostgresServer::user(), QStringLiteral("127.0.0.1"), server.port(),
                       QStringLiteral("gui_results"));
    QCOMPARE(dialog.location(), url);
    ResultsPage page(m_lab);
    page.setDatabase(dialog.location());
    QCOMPARE(AppSettings::databasePath(), url);
    QVERIFY2(!AppSettings::databasePath().contains(dbtest::PostgresServer::password()), "a password was stored");
    QVERIFY2(m_errors.isEmpty(), qPrintable(m_errors.join('\n')));
    QCOMPARE(page.campaignTree()->topLevelItemCount(), 1);
    QVERIFY(page.campaignTree()->topLevelItem(0)->text(0).contains(QStringLiteral("on the team server")));
    QVERIFY2(page.databaseText().startsWith(QStringLiteral("postgresql://")), qPrintable(page.databaseText()));
    // No file is shared with the other controller: the runner's advisory lock
    // on the server tells whether the campaign still has a runner.
    QCOMPARE(page.statusText(id), QStringLiteral("interrupted"));
    {
        const auto lock = orchestrator::takeRunnerLock(**runner, id);
        QVERIFY(lock != nullptr);
        QVERIFY(orchestrator::takeRunnerLock(*m_lab->store(), id) == nullptr);  // a second runner is refused
        page.refresh();
        QCOMPARE(page.statusText(id), QStringLiteral("running"));
    }
    page.refresh();
    QCOMPARE(page.statusText(id), QStringLiteral("interrupted"));
    runner->reset();
    // Back to a file before the server goes.
    page.setDatabase(m_dir.filePath(QStringLiteral("first.db")));
    qunsetenv("PGPASSWORD");
}

void TestLabDialogs::deployRunsTheLabLibraryAndShowsItsError() {
    // A loopback port nothing listens on: ssh fails at once, and the dialog
    // shows the lab library's error (ssh's own words) and its failure.
    quint16 closed = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        closed = probe.serverPort();
    }
    const QString labFile = m_dir.filePath(QStringLiteral("lab.json"));
    DeployDialog dialog;
    dialog.setHost(QStringLiteral("127.0.0.1"));
    dialog.setSshPort(closed);
    dialog.setAgentPort(7611);
    dialog.setLabFile(labFile);
    const lab::DeployOptions options = dialog.options();
    QCOMPARE(options.labPath, labFile);
    QCOMPARE(options.ssh.port, int(closed));
    QCOMPARE(options.ssh.user, QString());
    QCOMPARE(options.agentPort, quint16(7611));
    QSignalSpy finished(&dialog, &DeployDialog::finished);
    QSignalSpy deployed(&dialog, &DeployDialog::deployed);
    QVERIFY(dialog.deploy());
    QVERIFY(dialog.isRunning());
    QVERIFY(!dialog.deploy());  // one deploy at a time
    QVERIFY(finished.wait(20000));
    QVERIFY(!dialog.isRunning());
    QCOMPARE(finished.front().front().toBool(), false);
    QCOMPARE(deployed.count(), 0);
    const QString output = dialog.outputText();
    QVERIFY2(output.startsWith(QStringLiteral("Deploying an agent to 127.0.0.1 ")), qPrintable(output));
    // The library's error as `smclab lab deploy` would print it: ssh could not log in.
    QVERIFY2(output.contains(QStringLiteral("The deploy failed: 127.0.0.1: ssh failed: ")), qPrintable(output));
    QVERIFY2(dialog.statusText().contains(QStringLiteral("failed")), qPrintable(dialog.statusText()));
    QString why;
    const auto lab = lab::loadLab(labFile, &why);
    QVERIFY2(lab && lab->hosts.isEmpty(), qPrintable(why));  // nothing recorded
}

void TestLabDialogs::deployedHostsComeFromTheLabFile() {
    // What a successful deploy leaves: the host in the lab file (written by
    // the CLI's own lab_file code), its token in a file beside it.
    const QString labFile = m_dir.filePath(QStringLiteral("deployed.json"));
    QString why;
    lab::LabHost host;
    host.host = QStringLiteral("127.0.0.1");
    host.agentPort = 7612;
    host.remoteDir = QStringLiteral(".local/share/smclab-agent");
    host.tokenFile = lab::tokenPathFor(labFile, host.host, &why);
    QVERIFY2(!host.tokenFile.isEmpty(), qPrintable(why));
    QFile token(host.tokenFile);
    QVERIFY(token.open(QIODevice::WriteOnly));
    token.write("0123456789abcdef");
    token.close();
    lab::LabFile lab;
    lab.upsert(host);
    QVERIFY2(lab::saveLab(labFile, lab, &why), qPrintable(why));

    HostsPage page(m_lab);
    QCOMPARE(page.addLabFileHosts(labFile, {QStringLiteral("127.0.0.1")}), 1);
    const int row = page.model()->findAddress(QStringLiteral("127.0.0.1:7612"));
    QVERIFY(row >= 0);
    QCOMPARE(page.model()->host(row).tokenFile, host.tokenFile);
    // Remembered like any host with a token file (it reconnects at start).
    bool saved = false;
    for (const SavedHost& s : AppSettings::hosts())
        saved = saved || (s.address == QStringLiteral("127.0.0.1:7612") && s.tokenFile == host.tokenFile);
    QVERIFY(saved);
    QCOMPARE(page.addLabFileHosts(labFile, {QStringLiteral("elsewhere")}), 0);
}

// The Hosts page's VM lab buttons call the lab library on a worker thread
// and report back: stopping a lab file without VM hosts says so at once,
// and the buttons are usable again afterwards. (Booting the VMs is
// test_vmlab_kernel's job, through the same library.)
void TestLabDialogs::vmLabButtonsRunTheLabLibrary() {
    const QString labFile = m_dir.filePath(QStringLiteral("vm-lab.json"));
    qputenv("SMCLAB_LAB", labFile.toUtf8());
    QStringList infos;
    auto connection = connect(m_lab, &LabContext::infoReported, this, [&infos](const QString& text) { infos << text; });
    HostsPage page(m_lab);
    QPushButton* up = nullptr;
    QPushButton* down = nullptr;
    for (QPushButton* b : page.findChildren<QPushButton*>()) {
        if (b->text() == QStringLiteral("Start &VM lab")) up = b;
        if (b->text() == QStringLiteral("Stop VM lab")) down = b;
    }
    QVERIFY(up != nullptr && down != nullptr);
    QVERIFY(up->toolTip().contains(QStringLiteral("SMC-R")));
    down->click();
    QVERIFY(!down->isEnabled());  // busy while the worker runs
    QVERIFY(QTest::qWaitFor([&] { return infos.contains(QStringLiteral("No VM lab host was running")); }, 10'000));
    QVERIFY(up->isEnabled() && down->isEnabled());
    disconnect(connection);
    qunsetenv("SMCLAB_LAB");
}

// Small honesty of the Hosts page: the link box's label is its buddy (no
// stray ampersand), a greyed Swap says why, and an interface without an
// address is listed without a dangling comma.
void TestLabDialogs::hostsPageSaysWhatItCannotDo() {
    HostsPage page(m_lab);
    QLabel* linkLabel = nullptr;
    for (QLabel* l : page.findChildren<QLabel*>())
        if (l->text() == QStringLiteral("Lin&k:")) linkLabel = l;
    QVERIFY(linkLabel != nullptr);
    QVERIFY(qobject_cast<QComboBox*>(linkLabel->buddy()) != nullptr);
    QPushButton* swap = nullptr;
    for (QPushButton* b : page.findChildren<QPushButton*>())
        if (b->text() == QStringLiteral("S&wap server/client")) swap = b;
    QVERIFY(swap != nullptr);
    QVERIFY(!swap->isEnabled());
    QCOMPARE(swap->toolTip(), QStringLiteral("Select an agent to swap it with its pair partner"));

    protocol::Hello hello;
    hello.capabilities.nics.append({QStringLiteral("eth9"), QString(), 1500, true, {}});
    hello.capabilities.nics.append(
        {QStringLiteral("eth0"), QString(), 9000, true, {QStringLiteral("10.0.0.1/24"), QStringLiteral("fe80::1/64")}});
    const QString html = capabilitiesHtml(QStringLiteral("127.0.0.1:7600"), hello);
    QVERIFY2(html.contains(QStringLiteral("<b>eth9</b> up, MTU 1500<br>")), qPrintable(html));
    QVERIFY2(html.contains(QStringLiteral("<b>eth0</b> up, MTU 9000, 10.0.0.1/24, fe80::1/64")), qPrintable(html));
}

void TestLabDialogs::databaseDialogStates() {
    // An unreachable server: the page says it cannot read it, not that it
    // holds no campaigns yet.
    {
        ResultsPage page(m_lab);
        page.setDatabase(QStringLiteral("postgresql://nobody@127.0.0.1:1/smclab"));
        QVERIFY2(!page.hintText().contains(QStringLiteral("No campaigns")), qPrintable(page.hintText()));
        QVERIFY2(page.hintText().startsWith(QStringLiteral("Cannot read postgresql://")), qPrintable(page.hintText()));
        page.setDatabase(m_dir.filePath(QStringLiteral("first.db")));
        QVERIFY2(page.hintText().contains(QStringLiteral("No campaigns in")), qPrintable(page.hintText()));
        m_errors.clear();
    }
    // A new dialog has real values: the default file, and on PostgreSQL the
    // database "smclab" (a placeholder there failed with "no /DBNAME").
    DatabaseDialog dialog;
    QCOMPARE(dialog.location(), smclab::db::defaultDatabasePath());
    QRadioButton* postgres = nullptr;
    QRadioButton* sqlite = nullptr;
    for (QRadioButton* radio : dialog.findChildren<QRadioButton*>())
        (radio->text().contains(QStringLiteral("PostgreSQL")) ? postgres : sqlite) = radio;
    QVERIFY(postgres != nullptr && sqlite != nullptr);
    postgres->setChecked(true);
    for (QLineEdit* edit : dialog.findChildren<QLineEdit*>()) {
        if (edit->placeholderText() == QLatin1String("db.lab.example")) edit->setText(QStringLiteral("db.example"));
        if (edit->placeholderText() == QLatin1String("smclab")) edit->setText(QStringLiteral("lab"));
    }
    QCOMPARE(dialog.location(), QStringLiteral("postgresql://lab@db.example/smclab"));
    QVERIFY(dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
    // Back to SQLite from a server: the last file used is there as text.
    AppSettings::setDatabasePath(m_dir.filePath(QStringLiteral("first.db")));
    dialog.setLocation(QStringLiteral("postgresql://me@10.0.0.5:5433/team"));
    QVERIFY(dialog.isPostgres());
    sqlite->setChecked(true);
    QCOMPARE(dialog.location(), m_dir.filePath(QStringLiteral("first.db")));
    // The fields and buttons stay put while the hint changes length.
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QPushButton* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    const QPoint before = ok->mapTo(&dialog, QPoint(0, 0));
    postgres->setChecked(true);
    for (QLineEdit* edit : dialog.findChildren<QLineEdit*>()) {
        if (edit->placeholderText() == QLatin1String("db.lab.example"))
            edit->setText(QStringLiteral("a-rather-long-host-name-that-wraps-the-hint.db.lab.example.org"));
    }
    QCoreApplication::processEvents();
    QCOMPARE(ok->mapTo(&dialog, QPoint(0, 0)), before);
    for (QLineEdit* edit : dialog.findChildren<QLineEdit*>()) {
        if (edit->placeholderText() == QLatin1String("db.lab.example")) edit->clear();
    }
    QCoreApplication::processEvents();
    QCOMPARE(ok->mapTo(&dialog, QPoint(0, 0)), before);
}

QTEST_MAIN(TestLabDialogs)
#include "test_lab_dialogs.moc"
