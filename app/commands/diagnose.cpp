// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom diagnose`: why a service failed at --failed-at-sessions N.
#include "commands/commands.h"

#include "commands/options.h"
#include "commands/planflags.h"
#include "commands/presetlookup.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "plan/levers.h"

namespace Headroom {

int runDiagnose(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &)
{
    if (!isSet(p, "failed-at-sessions"))
        throw InputError(QStringLiteral("--failed-at-sessions"), QStringLiteral("is required: the session count at which it failed"));
    if (!isSet(p, "context"))
        throw InputError(QStringLiteral("--context"), QStringLiteral("is required: the tokens per session when it failed"));
    const Scenario s = scenarioFrom(p, err);
    const Diagnosis d = diagnoseFailure(s, countOpt(p, "failed-at-sessions"), countOpt(p, "context"), allModels(err), allGpus(err));
    if (isSet(p, "json"))
        out << QString::fromUtf8(JsonNumbers::toJson(d.toJson()));
    else
        out << d.sentence << '\n';
    return 0;
}

} // namespace Headroom
