// `smclab ARGS` as a child process, for the suites that check the CLI's
// output and exit codes: one way to run it, with the environment it needs
// (SMCLAB_LAB, SMCLAB_DB, ...) passed in rather than set on the test itself.
#pragma once

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace smclab::test {

struct Outcome {
    int exitCode = -1;  // -1: it crashed, or did not end in time and was killed
    QString out;
    QString err;
};

// The build's smclab (smclabBinary()) in `environment`; killed after
// `timeoutMs`, with whatever it printed until then.
Outcome runSmclab(const QStringList& args, int timeoutMs = 60'000,
                  const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment());

}  // namespace smclab::test
