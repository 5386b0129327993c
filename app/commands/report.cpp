// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom report -o FILE`: the PDF capacity report of the plan flags or --scenario FILE.
#include "commands/commands.h"

#include "commands/options.h"
#include "commands/planflags.h"
#include "core/inputerror.h"
#include "core/outputtarget.h"
#include "plan/capacity.h"

#include <QFileInfo>

namespace Headroom {

int runReport(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &writeReport)
{
    if (!p.isSet(QStringLiteral("output"))) {
        err << "error: -o/--output: give the PDF to write, e.g. -o report.pdf\n";
        return 2;
    }
    const QString size = p.isSet(QStringLiteral("page-size")) ? p.value(QStringLiteral("page-size")) : QStringLiteral("A4");
    if (size.compare(QLatin1String("A4"), Qt::CaseInsensitive) != 0 && size.compare(QLatin1String("Letter"), Qt::CaseInsensitive) != 0)
        throw InputError(QStringLiteral("--page-size"), QStringLiteral("must be A4 or Letter, got \"%1\"").arg(size));
    OutputTarget::check(p.value(QStringLiteral("output")), OutputTarget::Kind::Pdf, inputFiles(p), QStringLiteral("--output"));
    const Scenario s = scenarioFrom(p, err);
    const CapacityResult r = computeCapacity(s);
    if (!r.ok) {
        err << "error: " << r.error << '\n';
        return 1;
    }
    const QString name = p.isSet(QStringLiteral("scenario")) ? QFileInfo(p.value(QStringLiteral("scenario"))).completeBaseName()
                                                              : s.model.name + QStringLiteral(" on ") + s.gpu.name;
    const QString problem = writeReport ? writeReport(s, r, name, unitsFrom(p), p.value(QStringLiteral("output")), size)
                                        : QStringLiteral("this build cannot draw reports");
    if (!problem.isEmpty()) {
        err << "error: --output: " << problem << '\n';
        return 1;
    }
    out << "wrote " << p.value(QStringLiteral("output")) << '\n';
    return 0;
}

} // namespace Headroom
