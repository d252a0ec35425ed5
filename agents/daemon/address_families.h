// Which socket address families each transport and fabric the agent offers
// needs, so a sandbox around the agent (the packaged systemd unit's
// RestrictAddressFamilies=) can be checked against what the hello promises:
// a family left out makes a transport fail under the unit while it works
// from a shell. tests/agents/test_agent_unit_families.cpp holds the unit to
// this table for every name the agent reports.
#pragma once

#include <optional>

#include <QString>
#include <QStringList>

namespace smclab::daemon {

// The AF_* names (as systemd spells them) a transport ("tcp", "smcr",
// "ksmc") or fabric ("sim", "verbs") opens sockets of; nullopt for a name
// this table does not know (the test fails on those, so a new transport
// cannot ship without an entry).
std::optional<QStringList> requiredAddressFamilies(const QString& transportOrFabric);

// Families every agent needs whatever it runs: the control channel
// (AF_INET, AF_INET6) and its log/event plumbing (AF_UNIX).
QStringList agentBaseAddressFamilies();

}  // namespace smclab::daemon
