// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"
#include "inputs/scenario.h"
#include "core/units.h"

#include <QPageSize>
#include <QString>
#include <QVector>

QT_BEGIN_NAMESPACE
class QPagedPaintDevice;
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
};

/// The PDF capacity report a planner hands on: title, date and scenario name;
/// the inputs with each preset's source; the derivation with the numbers
/// plugged in; the stacked memory chart; sessions against context length; the
/// distribution with the cap and the risk; throughput, latency and cost; the
/// fleet; assumptions and units; the figures as `headroom plan --json` gives
/// them; and, when comparing, a comparison page. Page headers and footers
/// carry the scenario name, "page x of y" and the Headroom version.
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
    /// Writes a PDF to `path` on `pageSize` (A4 or Letter). Returns false with
    /// *error (naming the file) when it cannot.
    static bool writePdf(const QString &path, const ReportInput &input, QPageSize::PageSizeId pageSize, QString *error);
};

} // namespace Headroom
