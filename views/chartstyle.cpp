// SPDX-License-Identifier: GPL-3.0-or-later
#include "chartstyle.h"

#include <QAbstractAxis>
#include <QChart>
#include <QLegend>
#include <QWidget>

namespace Headroom::ChartStyle {

void apply(QChart *chart, const QWidget *view)
{
    const QPalette p = view->palette();
    const QColor text = p.color(QPalette::Text), base = p.color(QPalette::Base);
    QColor grid = p.color(QPalette::Mid);
    grid.setAlpha(140);
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
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsColor(text);
        axis->setLabelsFont(body);
        axis->setTitleBrush(text);
        axis->setTitleFont(body);
        axis->setLinePenColor(text);
        axis->setGridLineColor(grid);
        axis->setMinorGridLineColor(grid);
    }
}

QColor blend(const QColor &base, const QColor &mark, double share)
{
    auto mix = [share](double a, double b) { return a * (1.0 - share) + b * share; };
    return QColor::fromRgbF(float(mix(base.redF(), mark.redF())), float(mix(base.greenF(), mark.greenF())),
                            float(mix(base.blueF(), mark.blueF())));
}

} // namespace Headroom::ChartStyle
