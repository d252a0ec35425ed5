// The settings table: every setting's spelling, default, range and the text
// of its errors, as the CLI, the agent and the orchestrator presets rely on
// them (smc-protocol.md section 6 names; lab knobs with on|off and enum names).
#include <set>
#include <string>

#include <smcr/settings.h>

#include <QTest>

namespace {

std::string errorOf(const smcr::Status& s) {
    return s.ok() ? std::string("ok") : s.error().message;
}

}  // namespace

class TestCoreSettings : public QObject {
    Q_OBJECT
private slots:
    // Each numeric setting: listed, its default in range, both ends of its
    // range taken, one past them refused with the range in the message.
    void everyNumericSettingKeepsItsRange() {
        smcr::Settings s;
        std::set<std::string> names;
        for (const smcr::SettingInfo& info : smcr::settingTable()) {
            const std::string name = info.name;
            QVERIFY2(names.insert(name).second, name.c_str());
            QVERIFY2(info.minValue <= info.defaultValue && info.defaultValue <= info.maxValue, name.c_str());
            QCOMPARE(s.get(info.id), info.defaultValue);
            QVERIFY2(s.set(info.id, info.minValue).ok(), name.c_str());
            QCOMPARE(s.get(info.id), info.minValue);
            QVERIFY2(s.set(name, std::to_string(info.maxValue)).ok(), name.c_str());
            QCOMPARE(s.get(info.id), info.maxValue);
            const std::string range = std::to_string(info.minValue) + ".." + std::to_string(info.maxValue);
            const smcr::Status over = s.set(info.id, info.maxValue + 1);
            QCOMPARE(errorOf(over), name + ": " + std::to_string(info.maxValue + 1) + " outside " + range);
            QCOMPARE(over.error().code, smcr::Errc::invalidArgument);
            if (info.minValue > 0) {
                QCOMPARE(errorOf(s.set(name, std::to_string(info.minValue - 1))),
                         name + ": " + std::to_string(info.minValue - 1) + " outside " + range);
            }
            QCOMPARE(s.get(info.id), info.maxValue);  // a refused value changes nothing
            QVERIFY2(info.help != nullptr && info.help[0] != '\0', name.c_str());
        }
        QCOMPARE(names.size(), static_cast<size_t>(smcr::SettingId::count_));
    }

    void defaultsAsText() {
        smcr::Settings s;
        QCOMPARE(s.get("wmem").value(), std::string("65536"));
        QCOMPARE(s.get("autocorking_size").value(), std::string("65536"));
        QCOMPARE(s.get("smcr_max_links_per_lgr").value(), std::string("2"));
        QCOMPARE(s.get("lab.fast_fallback").value(), std::string("1"));
        QCOMPARE(s.get("lab.rq_credits").value(), std::string("0"));
        QCOMPARE(s.get("lab.tx_defer_to_owner").value(), std::string("1"));
        QCOMPARE(s.get("lab.wnd_update_limit").value(), std::string("max"));
        QCOMPARE(s.get("lab.cq_mode").value(), std::string("drain_then_arm"));
        QCOMPARE(s.get("lab.fabric").value(), std::string("sim"));
        QCOMPARE(s.get("lab.link").value(), std::string("ideal"));
    }

    void numbersTakeSizeSuffixesAndTheKernelPath() {
        smcr::Settings s;
        QVERIFY(s.set("wmem", "128K").ok());
        QCOMPARE(s.get(smcr::SettingId::wmem), uint64_t{128 * 1024});
        QVERIFY(s.set("rmem", "32k").ok());
        QCOMPARE(s.get(smcr::SettingId::rmem), uint64_t{32 * 1024});
        QCOMPARE(errorOf(s.set("wmem", "1M")), std::string("wmem: 1048576 outside 16384..524288"));
        QVERIFY(s.set("net.smc.autocorking_size", "0").ok());
        QCOMPARE(s.get("net.smc.autocorking_size").value(), std::string("0"));
        QCOMPARE(errorOf(s.set("wmem", "64KB")), std::string("wmem: '64KB' is not a number"));
        QCOMPARE(errorOf(s.set("wmem", "")), std::string("wmem: '' is not a number"));
        QVERIFY(!s.set("lab.cork_timer_ms", "-1").ok());
    }

    // on|off|true|false are 1 and 0 for every numeric setting; the value
    // prints as a number.
    void booleanWords() {
        smcr::Settings s;
        for (const char* name : {"lab.rq_credits", "lab.rx_backlog", "lab.fast_fallback", "lab.tx_defer_to_owner",
                                 "lab.tx_pieces", "limit_smc_hs"}) {
            for (const char* off : {"off", "false", "0"}) {
                QVERIFY2(s.set(name, off).ok(), name);
                QCOMPARE(s.get(name).value(), std::string("0"));
            }
            for (const char* on : {"on", "true", "1"}) {
                QVERIFY2(s.set(name, on).ok(), name);
                QCOMPARE(s.get(name).value(), std::string("1"));
            }
            QCOMPARE(errorOf(s.set(name, "2")), std::string(name) + ": 2 outside 0..1");
            QCOMPARE(errorOf(s.set(name, "yes")), std::string(name) + ": 'yes' is not a number");
        }
        QVERIFY(s.set("autocorking_size", "off").ok());  // 0 = autocorking off
        QCOMPARE(s.get(smcr::SettingId::autocorkingSize), uint64_t{0});
        QCOMPARE(errorOf(s.set("wmem", "on")), std::string("wmem: 1 outside 16384..524288"));
    }

    // Enum settings take their names and their numbers, and print names.
    void enumNames() {
        smcr::Settings s;
        QVERIFY(s.set("lab.cq_mode", "arm_first").ok());
        QCOMPARE(s.get("lab.cq_mode").value(), std::string("arm_first"));
        QCOMPARE(s.get(smcr::SettingId::cqMode), uint64_t{1});
        QVERIFY(s.set("lab.cq_mode", "0").ok());
        QCOMPARE(s.get("lab.cq_mode").value(), std::string("drain_then_arm"));
        QVERIFY(s.set("lab.cq_mode", "drain_then_arm").ok());
        QCOMPARE(errorOf(s.set("lab.cq_mode", "napi")),
                 std::string("lab.cq_mode: 'napi' is not drain_then_arm or arm_first"));
        QCOMPARE(errorOf(s.set("lab.cq_mode", "2")), std::string("lab.cq_mode: 2 outside 0..1"));
        QVERIFY(s.set("lab.wnd_update_limit", "min").ok());
        QCOMPARE(s.get("lab.wnd_update_limit").value(), std::string("min"));
        QCOMPARE(s.get(smcr::SettingId::wndUpdateLimit), uint64_t{1});
        QVERIFY(s.set("lab.wnd_update_limit", "max").ok());
        QCOMPARE(s.get("lab.wnd_update_limit").value(), std::string("max"));
        QVERIFY(s.set("lab.wnd_update_limit", "1").ok());
        QCOMPARE(s.get("lab.wnd_update_limit").value(), std::string("min"));
        QVERIFY(!s.set("lab.wnd_update_limit", "napi").ok());
        // A name belongs to its own setting only.
        QVERIFY(!s.set("lab.cq_mode", "max").ok());
        QVERIFY(!s.set("lab.wnd_update_limit", "arm_first").ok());
    }

    void textSettings() {
        smcr::Settings s;
        QVERIFY(s.set("lab.fabric", "verbs:mlx5_0").ok());
        QCOMPARE(s.fabric(), std::string("verbs:mlx5_0"));
        QCOMPARE(s.get("lab.fabric").value(), std::string("verbs:mlx5_0"));
        QCOMPARE(errorOf(s.set("lab.fabric", "")), std::string("lab.fabric: empty"));
        QCOMPARE(s.fabric(), std::string("verbs:mlx5_0"));
        QVERIFY(s.set("lab.link", "cx4-25g").ok());
        QCOMPARE(s.linkModel(), std::string("cx4-25g"));
        QCOMPARE(errorOf(s.set("lab.link", "fast")), std::string("lab.link: 'fast' is not ideal, cx4-25g or cx4lx-vf"));
        QCOMPARE(s.get("lab.link").value(), std::string("cx4-25g"));
    }

    // The table's rows say how each value is spelled: the numeric rows in
    // SettingId order, then the text ones; what each takes reads from the
    // same rows that parse and check it.
    void tableTypesAndValues() {
        const auto all = smcr::allSettings();
        const auto numeric = smcr::settingTable();
        QCOMPARE(all.size(), numeric.size() + 3);
        for (size_t i = 0; i < numeric.size(); ++i) {
            QCOMPARE(numeric[i].id, static_cast<smcr::SettingId>(i));
            QCOMPARE(std::string(all[i].name), std::string(numeric[i].name));
            QVERIFY(numeric[i].type != smcr::SettingType::text && numeric[i].type != smcr::SettingType::invalid);
        }
        const auto row = [&](const std::string& name) -> const smcr::SettingInfo& {
            for (const smcr::SettingInfo& info : all) {
                if (name == info.name) return info;
            }
            qFatal("no row %s", name.c_str());
        };
        for (const char* flag : {"limit_smc_hs", "lab.rq_credits", "lab.rx_backlog", "lab.fast_fallback",
                                 "lab.tx_defer_to_owner", "lab.tx_pieces"}) {
            QCOMPARE(row(flag).type, smcr::SettingType::flag);
            QCOMPARE(smcr::settingValuesText(row(flag)), std::string("on|off"));
        }
        QCOMPARE(row("lab.cq_mode").type, smcr::SettingType::choice);
        QCOMPARE(smcr::settingValuesText(row("lab.cq_mode")), std::string("drain_then_arm|arm_first"));
        QCOMPARE(smcr::settingValuesText(row("lab.wnd_update_limit")), std::string("max|min"));
        QCOMPARE(smcr::settingValuesText(row("smcr_max_conns_per_lgr")), std::string("16..255"));
        QCOMPARE(row("wmem").type, smcr::SettingType::number);
        QCOMPARE(row("lab.fabric").type, smcr::SettingType::text);
        QCOMPARE(row("lab.fabric").id, smcr::SettingId::count_);
        QCOMPARE(std::string(row("lab.fabric").defaultText), std::string("sim"));
        QCOMPARE(smcr::settingValuesText(row("lab.fabric")), std::string("text"));
        QCOMPARE(smcr::settingValuesText(row("lab.link")), std::string("ideal|cx4-25g|cx4lx-vf"));
        QCOMPARE(row("lab.ueid").type, smcr::SettingType::text);
        QCOMPARE(std::string(row("lab.ueid").defaultText), std::string());  // unset: SMC-R v1
        QCOMPARE(std::string(smcr::settingTypeName(smcr::SettingType::choice)), std::string("choice"));
        // Every choice setting names its values in its errors alike.
        smcr::Settings s;
        QCOMPARE(errorOf(s.set("lab.wnd_update_limit", "napi")),
                 std::string("lab.wnd_update_limit: 'napi' is not max or min"));
        QCOMPARE(errorOf(s.set("lab.link", "")), std::string("lab.link: '' is not ideal, cx4-25g or cx4lx-vf"));
    }

    void unknownNames() {
        smcr::Settings s;
        const smcr::Status bad = s.set("lab.no_such", "1");
        QCOMPARE(bad.error().code, smcr::Errc::notFound);
        QCOMPARE(errorOf(bad), std::string("unknown setting 'lab.no_such'"));
        QCOMPARE(s.get("wmemx").error().code, smcr::Errc::notFound);
        QCOMPARE(s.get("wmemx").error().message, std::string("unknown setting 'wmemx'"));
        QCOMPARE(s.set(smcr::SettingId::count_, 0).error().code, smcr::Errc::invalidArgument);
    }

    // The listing: the table in order, then the text settings, each with its
    // scope and help; values as get() prints them.
    void listing() {
        smcr::Settings s;
        QVERIFY(s.set("lab.cq_mode", "arm_first").ok());
        const std::vector<smcr::SettingValue> all = s.list();
        const auto table = smcr::settingTable();
        QCOMPARE(all.size(), table.size() + 3);
        for (size_t i = 0; i < table.size(); ++i) {
            QCOMPARE(all[i].name, std::string(table[i].name));
            QCOMPARE(all[i].scope, table[i].scope);
            QCOMPARE(all[i].help, std::string(table[i].help));
            QCOMPARE(all[i].value, s.get(all[i].name).value());
        }
        QCOMPARE(all[table.size()].name, std::string("lab.fabric"));
        QCOMPARE(all[table.size()].value, std::string("sim"));
        QCOMPARE(all[table.size()].scope, smcr::SettingScope::newLinkGroups);
        QCOMPARE(all[table.size()].help, std::string("fabric backend: sim | verbs[:device]"));
        QCOMPARE(all[table.size() + 1].name, std::string("lab.link"));
        QCOMPARE(all[table.size() + 1].value, std::string("ideal"));
        QCOMPARE(all[table.size() + 1].help, std::string("sim link model: ideal | cx4-25g | cx4lx-vf"));
        QCOMPARE(all[table.size() + 2].name, std::string("lab.ueid"));
        QCOMPARE(all[table.size() + 2].value, std::string());
        QVERIFY(s.set("lab.ueid", "SMCLAB-VM").ok());
        QCOMPARE(s.ueid(), std::string("SMCLAB-VM"));
        QVERIFY(!all.empty());
        bool sawCqMode = false;
        for (const auto& v : all) {
            if (v.name == "lab.cq_mode") sawCqMode = v.value == "arm_first";
        }
        QVERIFY(sawCqMode);
        QCOMPARE(std::string(smcr::settingScopeName(smcr::SettingScope::newConnections)),
                 std::string("new connections"));
    }
};

QTEST_APPLESS_MAIN(TestCoreSettings)
#include "test_core_settings.moc"
