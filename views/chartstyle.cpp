// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartstyle.h"

#include <QApplication>
#include <QRegularExpression>

#include <QAbstractAxis>
#include <QChart>
#include <QFontMetricsF>
#include <QLegend>
#include <QLegendMarker>
#include <QLocale>
#include <QLogValueAxis>
#include <QValueAxis>
#include <QWidget>
#include <cmath>

namespace Headroom::ChartStyle {

namespace {
constexpr int kChartLines = 20; // 8 for the plot; the title (1.2 x, bold), two axis rows and the legend, margins: the rest
}

namespace {
// The dynamic property setEntryVisible() keeps on a legend marker (a QObject).
constexpr char kEntryHidden[] = "headroomEntryHidden";
} // namespace

void apply(QChart *chart, QWidget *view)
{
    // A plot of eight lines of text under the title, the axes and the legend, whatever the font
    // (issue 31: at 2 points more, the memory chart had 80 px): the page around it scrolls instead.
    view->setMinimumHeight(kChartLines * QFontMetrics(view->font()).height());
    apply(chart, static_cast<const QWidget *>(view));
}

void apply(QChart *chart, const QWidget *view)
{
    const QPalette p = view->palette();
    const QColor text = p.color(QPalette::Text), base = p.color(QPalette::Base);
    // The grid: the palette's mid tone at 140/255 over the base the plot stands on, mixed here as
    // an opaque colour (the same pixels; a translucent line is blended pixel by pixel on every repaint).
    const QColor grid = blend(base, p.color(QPalette::Mid), 140.0 / 255.0);
    chart->setBackgroundBrush(base);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(text);
    QFont body = view->font();
    QFont title = body;
    title.setPointSizeF(body.pointSizeF() * 1.2);
    title.setBold(true);
    chart->setTitleFont(title);
    chart->legend()->setLabelColor(text);
    chart->legend()->setFont(body);
    // Axis numbers grouped as every figure on screen is (Units::formatCount: English grouping).
    chart->setLocale(QLocale(QLocale::English, QLocale::UnitedStates));
    chart->setLocalizeNumbers(true);
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsColor(text);
        axis->setLabelsFont(body);
        axis->setTitleBrush(text);
        axis->setTitleFont(body);
        axis->setLinePenColor(text);
        axis->setGridLineColor(grid);
        axis->setMinorGridLineColor(grid);
        axis->setShadesVisible(false);
    }
    if (!chart->property("headroomFitLegend").toBool()) {
        chart->setProperty("headroomFitLegend", true);
        QObject::connect(chart, &QGraphicsWidget::geometryChanged, chart, [chart] {
            fitLegend(chart);
            fitTitle(chart);
        });
    }
    fitLegend(chart);
    fitTitle(chart);
}

void fitTitle(QChart *chart)
{
    // The title as the view set it: what is shown unless the view has set another since.
    const QString shown = chart->property("headroomShownTitle").toString();
    const QString full = !shown.isEmpty() && chart->title() == shown ? chart->property("headroomTitle").toString() : chart->title();
    const QFontMetricsF fm(chart->titleFont());
    const double width = chart->size().width() - 2 * fm.height(); // the chart's margins, about a line each side
    QString fitted = full;
    if (fm.horizontalAdvance(full) > width && width > 0) {
        // Broken after the last ", " or ": " (else before the last " (") whose first part fits, so the
        // figure at the end stays whole on the second line; the first such break when none fits.
        static const QRegularExpression breaks(QStringLiteral(",\\s|:\\s|\\s\\("));
        qsizetype at = -1;
        for (QRegularExpressionMatchIterator it = breaks.globalMatch(full); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            const qsizetype end = m.captured().startsWith(QLatin1Char(' ')) ? m.capturedStart() : m.capturedStart() + 1;
            if (at < 0 || fm.horizontalAdvance(full.left(end)) <= width)
                at = end;
        }
        if (at > 0)
            fitted = full.left(at).toHtmlEscaped() + QStringLiteral("<br>") + full.mid(at).trimmed().toHtmlEscaped();
    }
    chart->setProperty("headroomTitle", full);
    chart->setProperty("headroomShownTitle", fitted);
    if (chart->title() != fitted)
        chart->setTitle(fitted);
}

void fitLegend(QChart *chart)
{
    QLegend *legend = chart->legend();
    const QFontMetricsF fm(legend->font());
    // One row: each entry's label, its marker (about a line high) and the gaps around them.
    double row = 0;
    for (QLegendMarker *m : legend->markers())
        if (!m->property(kEntryHidden).toBool() && m->series() && m->series()->isVisible())
            row += fm.horizontalAdvance(m->label()) + 2.5 * fm.height();
    const QMarginsF margins = chart->margins();
    const double room = chart->size().width() - margins.left() - margins.right();
    const Qt::Alignment want = row > room ? Qt::AlignRight : Qt::AlignBottom;
    if (legend->alignment() != want)
        legend->setAlignment(want);
}

void setEntryVisible(QLegendMarker *marker, bool visible)
{
    marker->setProperty(kEntryHidden, !visible);
    marker->setVisible(visible);
}

void niceRange(QValueAxis *axis, double top, int maxSteps)
{
    if (!(top > 0) || !std::isfinite(top))
        top = 1;
    // A step of 1, 2, 2.5 or 5 x 10^k giving at most maxSteps steps to the top.
    const double raw = top / std::max(1, maxSteps);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * magnitude;
    for (double m : {1.0, 2.0, 2.5, 5.0})
        if (m * magnitude >= raw * (1 - 1e-9)) {
            step = m * magnitude;
            break;
        }
    const double steps = std::ceil(top / step - 1e-9);
    axis->setRange(0, steps * step);
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setTickCount(int(steps) + 1);
    axis->setMinorTickCount(0);
    // Decimals the step needs: 2.5 x 10^k one more than 10^k.
    int decimals = std::max(0, int(std::ceil(-std::log10(step) - 1e-9)));
    if (std::abs(step / std::pow(10.0, -decimals) - std::round(step / std::pow(10.0, -decimals))) > 1e-6)
        ++decimals;
    const QString format = QStringLiteral("%.%1f").arg(decimals);
    if (axis->labelFormat() != format) // set again, Qt Charts lays the whole chart out again
        axis->setLabelFormat(format);
}

QPalette activeWhenInactive(QPalette palette)
{
    for (int role = 0; role < QPalette::NColorRoles; ++role)
        if (role != QPalette::NoRole)
            palette.setBrush(QPalette::Inactive, QPalette::ColorRole(role), palette.brush(QPalette::Active, QPalette::ColorRole(role)));
    return palette;
}

QColor blend(const QColor &base, const QColor &mark, double share)
{
    auto mix = [share](double a, double b) { return a * (1.0 - share) + b * share; };
    return QColor::fromRgbF(float(mix(base.redF(), mark.redF())), float(mix(base.greenF(), mark.greenF())),
                            float(mix(base.blueF(), mark.blueF())));
}

void logRange(QLogValueAxis *axis, double lo, double hi)
{
    constexpr double floor = 1, ceiling = 1e16;
    lo = std::isfinite(lo) && lo > floor ? std::min(lo, ceiling / 10) : floor;
    hi = std::isfinite(hi) && hi > 0 ? std::min(hi, ceiling) : 10 * lo;
    hi = std::max(hi, 10 * lo);
    axis->setRange(lo, hi);
}

QColor errorColor(const QWidget *widget)
{
    const bool dark = widget && widget->palette().color(QPalette::Window).lightness() < 128;
    return dark ? QColor(0xcf, 0x66, 0x79) : QColor(0xb0, 0x00, 0x20);
}

QString errorHtml(const QString &escaped, const QWidget *widget)
{
    return QStringLiteral("<span style='color:%1'>%2</span>").arg(errorColor(widget).name(), escaped);
}

void markInvalid(QWidget *field, const QString &problem)
{
    field->setToolTip(problem);
    field->setAccessibleDescription(problem);
    if (problem.isEmpty()) {
        field->setPalette(QPalette()); // back to the inherited palette
        return;
    }
    QPalette p = field->parentWidget() ? field->parentWidget()->palette() : QApplication::palette();
    p.setColor(QPalette::Base, blend(p.color(QPalette::Base), QColor(0xd0, 0x30, 0x30), 0.3));
    field->setPalette(p);
}

} // namespace Headroom::ChartStyle
