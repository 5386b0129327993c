// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>

QT_BEGIN_NAMESPACE
class QChart;
class QWidget;
QT_END_NAMESPACE

namespace Headroom::ChartStyle {

/// Dresses `chart` in the palette and font of `view`, the widget showing it:
/// background and plot area in the palette's base, titles, labels, legend and
/// axis lines in its text colour, grid lines in its mid colour, fonts from the
/// widget's font (the title a fifth larger and bold). Call it when the chart
/// is built and on every QEvent::PaletteChange and QEvent::FontChange, so the
/// chart follows a light or dark system palette and the window's zoom.
void apply(QChart *chart, const QWidget *view);

/// `share` of `mark` blended into `base` (0 = base, 1 = mark): a highlight
/// that keeps the palette's text readable on a light or a dark base.
QColor blend(const QColor &base, const QColor &mark, double share);

} // namespace Headroom::ChartStyle
