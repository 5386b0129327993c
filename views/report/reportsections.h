// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "report/reporttext.h"
#include "inputs/scenario.h"

#include <QPair>
#include <QString>
#include <QVector>

namespace Headroom {
class PageCursor;
class ReportCharts;
struct ReportFigures;
}

/// The sections of the capacity report (ReportWriter), each writing its blocks onto the
/// shared PageCursor from the shared ReportFigures, in the order ReportWriter::paint calls
/// them. Figures are in the report's units; money in US dollars.
namespace Headroom::ReportSections {
HEADROOM_TR_CONTEXT(ReportWriter)

/// The title line and the decision: one sentence (sessions, GPUs, money a month and per
/// session-hour, the limit), and the what-ifs in force.
void decision(PageCursor &page, const ReportFigures &f);
/// Fleet and money on the scenario's basis: GPUs and TP groups, sessions, the margin's
/// GPUs, money per month, per session-hour and per million tokens, and a cheaper choice
/// from the sensitivity rows; then the memory chart.
void fleetAndMoney(PageCursor &page, const ReportFigures &f, const ReportCharts &charts);
/// The (up to) three assumptions that move the answer most and the risk accepted, in words.
void assumptionsAndRisk(PageCursor &page, const ReportFigures &f);

/// Per session and per card on the one basis, and against a distribution the same card
/// on the other bases.
void perSessionAndCard(PageCursor &page, const ReportFigures &f);
/// The sensitivity table (each row one computeCapacity() call) and the engine's band.
void sensitivity(PageCursor &page, const ReportFigures &f);
/// The inputs, every value that differs from its preset in bold.
void inputs(PageCursor &page, const ReportFigures &f);
/// Session lengths and risk, with the lengths' chart (when there is more than one length)
/// and the sessions-against-context chart.
void lengthsAndRisk(PageCursor &page, const ReportFigures &f, const ReportCharts &charts);
/// Throughput and latency at the sessions per TP group, with its chart.
void throughput(PageCursor &page, const ReportFigures &f, const ReportCharts &charts);

/// The comparison page (starts a page): this scenario and `others` side by side, the inputs
/// that differ and the answers, and their memory charts on one scale. Nothing without others.
void comparison(PageCursor &page, const ReportFigures &f, const QVector<QPair<QString, Scenario>> &others, ReportCharts &charts);

/// Appendix A (starts a page): the derivation, every number, and the levers.
void derivation(PageCursor &page, const ReportFigures &f);
/// Appendix B: the sources of the model, the card, the price and the lengths, with their dates.
void sources(PageCursor &page, const ReportFigures &f);
/// Appendix C: the assumptions and units, and the plan's warnings.
void assumptionsAndUnits(PageCursor &page, const ReportFigures &f);
/// Appendix D: the figures of `plan --json` under its field names, for scripts.
void figuresForScripts(PageCursor &page, const ReportFigures &f);

} // namespace Headroom::ReportSections
