// SPDX-License-Identifier: GPL-3.0-or-later
#include "reportwriter.h"
#include "core/outputtarget.h"
#include "report/pagecursor.h"
#include "report/reportcharts.h"
#include "report/reportfigures.h"
#include "report/reportsections.h"

#include "core/inputerror.h"

#include <QCoreApplication>
#include <QLocale>
#include <QPdfWriter>
#include <QPrinter>
#include <QSaveFile>

namespace Headroom {

namespace {

// Every report's page: its size, 18 mm margins; with kDotsPerInch, the one layout of the PDF
// and of the print preview (ReportWriter::setUpPrinter).
constexpr int kDotsPerInch = 144;
void setUpPage(QPagedPaintDevice &device, QPageSize::PageSizeId size)
{
    device.setPageSize(QPageSize(size));
    device.setPageMargins(QMarginsF(18, 18, 18, 18), QPageLayout::Millimeter);
}

} // namespace

bool ReportWriter::paint(QPagedPaintDevice *device, const ReportInput &in, QString *error)
{
    if (!in.result.ok) {
        *error = in.result.error;
        return false;
    }
    const ReportFigures f(in);
    ReportCharts charts(f); // alive until the pages are painted
    PageCursor page;
    ReportSections::decision(page, f);
    ReportSections::fleetAndMoney(page, f, charts);
    ReportSections::assumptionsAndRisk(page, f);
    ReportSections::perSessionAndCard(page, f);
    ReportSections::sensitivity(page, f);
    ReportSections::inputs(page, f);
    ReportSections::lengthsAndRisk(page, f, charts);
    ReportSections::throughput(page, f, charts);
    ReportSections::comparison(page, f, in.comparisons, charts);
    ReportSections::derivation(page, f);
    ReportSections::sources(page, f);
    ReportSections::assumptionsAndUnits(page, f);
    ReportSections::figuresForScripts(page, f);
    return page.paint(device, f.title, error);
}

void ReportWriter::setUpPrinter(QPrinter *printer, QPageSize::PageSizeId pageSize)
{
    printer->setResolution(kDotsPerInch);
    printer->setFullPage(false);
    setUpPage(*printer, pageSize);
}

QPageSize::PageSizeId ReportWriter::defaultPageSize()
{
    return QLocale().measurementSystem() == QLocale::ImperialUSSystem ? QPageSize::Letter : QPageSize::A4;
}

bool ReportWriter::writePdf(const QString &path, const ReportInput &input, QPageSize::PageSizeId pageSize, QString *error,
                            const QVector<OutputTarget::Protected> &protect)
{
    // Atomic: the PDF goes to a temporary file that replaces `path` only when
    // complete, so a full disk or a failure leaves the previous file intact.
    try {
        OutputTarget::check(path, OutputTarget::Kind::Pdf, protect, QStringLiteral("file"));
    } catch (const InputError &e) {
        *error = e.message();
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    QPdfWriter writer(&file);
    writer.setResolution(kDotsPerInch);
    setUpPage(writer, pageSize);
    writer.setTitle(QStringLiteral("Headroom capacity report: %1").arg(input.name));
    writer.setCreator(QStringLiteral("Headroom %1").arg(QCoreApplication::applicationVersion()));
    QString why;
    if (!paint(&writer, input, &why)) {
        file.cancelWriting();
        *error = QStringLiteral("%1: %2").arg(path, why);
        return false;
    }
    if (!file.commit()) {
        *error = OutputTarget::commitFailed(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace Headroom
