// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"
#include "inputs/scenario.h"
#include "core/units.h"
#include "core/outputtarget.h"
#include "trafficreplay.h"

#include <QPageSize>
#include <QString>
#include <QVector>

QT_BEGIN_NAMESPACE
class QPagedPaintDevice;
class QPrinter;
QT_END_NAMESPACE

namespace Headroom {

/// What a report shows: the scenario, its result, and scenarios to compare.
struct ReportInput
{
    QString name;                 ///< scenario name for the title and page headers
    Scenario scenario;
    CapacityResult result;
    UnitSystem units = UnitSystem::Decimal;
    QVector<QPair<QString, Scenario>> comparisons; ///< up to 3 more scenarios for a comparison page
    /// The scenario was saved and has been edited since: the inputs say so once (never the
    /// title or the headers; a scenario never saved has no file to differ from).
    bool unsavedChanges = false;
    /// The window's Traffic tab's replay of a trace on this plan (empty when none ran): page 1
    /// says its GPUs and money a month under the decision.
    std::optional<TrafficAnswer> traffic = std::nullopt;
};

/// The PDF capacity report a planner hands to finance. Page 1 is the decision:
/// one sentence (sessions, GPUs, money a month and per session-hour, the
/// limit), the fleet (GPUs, TP groups), money per month (GPUs x price x 730 h
/// for the recommended deployment: the target sessions, or one TP group) and
/// per million tokens, the traffic's fleet when a trace was replayed (ReportInput::traffic), the stacked memory chart, the three assumptions that
/// move the answer most and the risk accepted in words. Then one table per
/// basis (at the context / at the cap / against the trace at risk p), the
/// inputs with every value that differs from its preset marked (what-ifs said
/// as such), the sensitivity table (each row one computeCapacity() call) and
/// the engine's uncertainty band, lengths and risk, throughput; a comparison
/// page listing every input that differs; and an appendix with the
/// derivation, the sources with their dates and the `plan --json` figures for
/// scripts. Blocks flow onto pages in that order: the first page opens with the
/// sentence and the fleet, and whatever does not fit (at the default A4, the
/// three assumptions after the memory chart) continues on the next; the
/// comparison and the appendix start pages. Headers and footers carry the title, "Page x of y" and the
/// Headroom version. Each section (ReportSections, views/report/) writes its
/// blocks onto one PageCursor from one ReportFigures; paint() orders them.
///
/// Charts are painted from their chart scenes onto the page painter (never a
/// screen grab), with animations and shadows off, so they stay vector; text
/// is drawn as text (QTextDocument), so it is selectable and extractable.
class ReportWriter
{
public:
    /// Paints the report on any paged device (QPdfWriter, or a QPrinter for the
    /// print preview). Returns false with *error when the device cannot be painted.
    static bool paint(QPagedPaintDevice *device, const ReportInput &input, QString *error);
    /// Writes a PDF to `path` on `pageSize` (A4 or Letter) with QSaveFile. Returns
    /// false with *error (naming the file) when it cannot, or, writing nothing, when
    /// OutputTarget::check refuses `path`: an existing file that is not a PDF, or
    /// one of `protect` (the preset store, the scenario the report is drawn from).
    static bool writePdf(const QString &path, const ReportInput &input, QPageSize::PageSizeId pageSize, QString *error,
                         const QVector<OutputTarget::Protected> &protect = {});
    /// Gives `printer` the pages writePdf writes on `pageSize`: the size, 18 mm margins and
    /// 144 dots per inch (the text is laid out in the device's pixels, so a preview at the
    /// printer's 1,200 dpi and default margins broke its lines and pages elsewhere: 4 pages
    /// for the PDF's 5). Call before paint(); the print preview does.
    static void setUpPrinter(QPrinter *printer, QPageSize::PageSizeId pageSize);
    /// The page size a report starts on: US Letter where the locale measures in inches, else A4.
    static QPageSize::PageSizeId defaultPageSize();
};

} // namespace Headroom
