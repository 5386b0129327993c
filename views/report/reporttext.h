// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <optional>

namespace Headroom {
struct Scenario;
}

/// Tells lupdate that the tr() calls of the class or namespace it stands in are translated in
/// `context`, as Q_DECLARE_TR_FUNCTIONS does (CMakeLists.txt passes it as an alias of that
/// macro); the compiler sees nothing. The report's sections call ReportText::tr through
/// `using ReportText::tr`, which lupdate does not follow: each class and namespace that calls it
/// carries this mark in its header, or lupdate files the strings under contexts the program
/// never asks for.
#define HEADROOM_TR_CONTEXT(context)

/// The words every section of the report (ReportWriter) writes with: its translation
/// context, HTML escaping and table rows, money and the basis of a scenario's figures.
namespace Headroom::ReportText {
HEADROOM_TR_CONTEXT(ReportWriter)

/// `t` translated in the report's context, "ReportWriter".
QString tr(const char *t);

/// `s` escaped for the report's HTML.
QString esc(const QString &s);

/// A two-cell table row of HTML: label `a`, value `b` (both already HTML).
QString row(const QString &a, const QString &b);

/// US dollars `v` (Units::formatUsd), or "set a price" when there is no price.
QString money(const std::optional<double> &v);

/// The basis every per-session figure of `s` stands on, in words; a risk in the one
/// form the window and the command line write (Units::formatRisk: "1 in 1,000,000
/// (1e-6)", from 0.1 up a percentage).
QString basisOf(const Scenario &s);

} // namespace Headroom::ReportText
