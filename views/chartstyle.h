// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <QColor>
#include <QPalette>

QT_BEGIN_NAMESPACE
class QChart;
class QLegendMarker;
class QLogValueAxis;
class QValueAxis;
class QWidget;
QT_END_NAMESPACE

namespace Headroom::ChartStyle {

/// Dresses `chart` in the palette and font of `view`, the widget showing it:
/// background and plot area in the palette's base, titles, labels, legend and
/// axis lines in its text colour, grid lines in its mid colour, fonts from the
/// widget's font (the title a fifth larger and bold), numbers on the axes
/// grouped in thousands as Units::formatCount groups them ("100,000"), and the
/// legend kept whole (see fitLegend). Call it when the chart
/// is built and on every QEvent::PaletteChange and QEvent::FontChange, so the
/// chart follows a light or dark system palette and the window's zoom.
void apply(QChart *chart, const QWidget *view);
/// The same for a chart shown on screen in `view`, which is also kept at least
/// 20 lines of its font tall (a plot of eight lines under the title, the axes
/// and the legend), so a larger font scrolls the page rather than squeezing
/// the plot. (A report's chart is painted at the page's size: the const form.)
void apply(QChart *chart, QWidget *view);

/// Puts the legend below the plot when its entries fit the chart's width in
/// one row, else at the right, one entry a line, so no entry is cut. Counts
/// the entries of visible series not hidden by setEntryVisible(), laid out or
/// not. Runs again whenever the chart is resized (apply() connects it once).
void fitLegend(QChart *chart);

/// Shows the title of `chart` whole: one that is wider than the chart is broken onto a second
/// line after its last ", " or ": " (or before its last " (") that leaves a first line that fits,
/// so the figure it ends with ("over by 486.8 GB") is never elided. Runs on every resize (apply()
/// connects it); call it after setting a new title. The title set stays readable as
/// chart->property("headroomTitle").
void fitTitle(QChart *chart);

/// Shows or hides `marker`'s legend entry and records it for fitLegend():
/// Qt Charts reads every marker as hidden until the chart is first laid out
/// (QLegendMarker::isVisible() is false in a chart built for the report and
/// never shown), so the entries cannot be counted from the markers alone.
void setEntryVisible(QLegendMarker *marker, bool visible);

/// Sets `axis` to run from 0 to the first "nice" value at or above `top`
/// (1, 2, 2.5 or 5 times a power of ten per step, at most `maxSteps` steps:
/// fewer on a short chart, so the labels never collide), with its ticks on
/// the steps and as many decimals as a step needs. `top` <= 0 gives 0..1.
void niceRange(QValueAxis *axis, double top, int maxSteps = 8);
/// Sets a log axis to [lo, hi] held within [1, 10^16] (token and session
/// counts; far past that, or on an empty range, Qt Charts' log domain recurses
/// without end: a retention cap of 2^63 - 1 crashed the report), hi at least
/// ten times lo. NaN, infinities and non-positive bounds give 1 and 10.
void logRange(QLogValueAxis *axis, double lo, double hi);

/// `palette` with its Inactive group made the Active one: a window without
/// the focus (a presenter's laptop talking to another window, a screen
/// without a window manager) keeps its figures in the active text colours.
/// Adwaita-Dark's inactive text is its disabled grey (#919190), so a
/// headline read as disabled and a disabled Undo as enabled.
QPalette activeWhenInactive(QPalette palette);

/// `share` of `mark` blended into `base` (0 = base, 1 = mark): a highlight
/// that keeps the palette's text readable on a light or a dark base.
QColor blend(const QColor &base, const QColor &mark, double share);

/// The error colour of errorHtml() for `widget`'s palette (also the over-capacity hatch): at
/// least 4.5:1 against the window's base in light and dark (WCAG 2.1, 1.4.11 asks 3:1 of graphics).
QColor errorColor(const QWidget *widget);

/// `escaped` (HTML-escaped text) as an error in rich text: Material's error red #b00020 on a
/// light window, its dark-theme counterpart #cf6679 (Material Design colour system) where the
/// window colour of `widget`'s palette is dark, so a refusal stays readable in Adwaita-Dark.
QString errorHtml(const QString &escaped, const QWidget *widget);

/// Marks `field` as holding text it cannot read: its tooltip and accessible description say
/// `problem` and its base is tinted towards red in the palette in use (light and dark alike);
/// an empty `problem` clears the mark and restores the inherited palette.
void markInvalid(QWidget *field, const QString &problem);

} // namespace Headroom::ChartStyle
