// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVector>

namespace Headroom {

/// One sample request-length trace shipped with Headroom.
struct SampleTrace
{
    QString title; ///< what a menu shows, e.g. "Azure LLM inference 2023: conversation (19,366 requests)"
    QString path;  ///< absolute path of the CSV file
};

/// The sample traces installed with the program: the Azure LLM inference 2023 traces
/// (Azure Public Dataset, CC-BY 4.0; Patel et al., "Splitwise", ISCA 2024; attribution in
/// resources/traces/README.md). They are looked for in <program folder>/../share/headroom/traces,
/// which holds for the build tree (build/app/headroom, build/share/...) and for an installed or
/// merely extracted package (usr/bin/headroom, usr/share/...), then in headroom/traces under every
/// XDG data folder (QStandardPaths::GenericDataLocation). The first folder holding a file wins
/// for that file name. Returns the known traces first, in a fixed order, then any other *.csv
/// there by file name; an empty list when none is installed. Needs a QCoreApplication for the
/// program folder; never throws.
QVector<SampleTrace> sampleTraces();

/// How a --distribution spec reads to a person: a sample trace of sampleTraces() ("trace:"
/// and the path of one, compared as canonical paths) is named by its file, "the sample trace
/// azure-llm-inference-2023-conv.csv" (README: in resources/traces/ of the repository,
/// /usr/share/headroom/traces/ from the package), not by the folder it was found in
/// (build/share/headroom/traces from a build tree); any other spec is returned as it is.
/// Never throws.
QString describeSpec(const QString &spec);

} // namespace Headroom
