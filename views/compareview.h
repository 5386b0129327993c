// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "planner.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QLabel;
class QTableWidget;
class QHBoxLayout;
class QPushButton;
class QCheckBox;
QT_END_NAMESPACE

namespace Headroom {

class MemoryChartView;

/// Up to four scenarios side by side: the pinned ones (A, B, C) and the
/// current one, live. A table of the key figures with every value that
/// differs from the first column highlighted, and the memory charts on one
/// shared scale under one shared legend. Only the inputs that differ between
/// the columns show (what-ifs included: KV heads, the lengths and their
/// source, the cap, the risk), then the answer; "Show all inputs" lists every
/// input. Pin the current scenario, change one input, and the
/// difference shows at once. Renders the Planner's results.
class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(Planner *planner, QWidget *parent = nullptr);
    /// The table, brought up to date first (while the tab is hidden a new result waits for it to show).
    QTableWidget *table();
    /// The "show all inputs" toggle (off: only the inputs that differ).
    QCheckBox *showAllToggle() const { return m_showAll; }

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    struct Row;
    /// Rebuilds the table and the charts from the pinned scenarios and the current one.
    void refresh();
    /// The input rows, in `u`: shown only where a column differs, unless "show all" is on.
    static QVector<Row> inputRows(UnitSystem u);
    /// The answer rows, in `u`: always shown.
    static QVector<Row> answerRows(UnitSystem u);
    /// The table of `columns` by the `inputs` then `answers` rows, each value that differs
    /// from the first column's highlighted; the "show all" toggle counts the inputs alike.
    void fillTable(const QVector<Planner::Pinned> &columns, const QVector<Row> &inputs, const QVector<Row> &answers);
    /// One memory chart per column in `u`, on the scale of the tallest stack, under one
    /// legend of the bands some chart draws.
    void showCharts(const QVector<Planner::Pinned> &columns, UnitSystem u);

    Planner *m_planner;
    QTableWidget *m_table;
    QHBoxLayout *m_charts;
    QLabel *m_legend;
    QVector<MemoryChartView *> m_chartViews;
    QPushButton *m_pin;
    QPushButton *m_unpin;
    QCheckBox *m_showAll;
    /// A result arrived while the tab was hidden: the table and charts are rebuilt when it shows
    /// (a drag on another tab rebuilds no hidden table, nor lays out hidden charts).
    bool m_stale = false;
};

} // namespace Headroom
