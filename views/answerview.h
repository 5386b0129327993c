// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"
#include "plan/levers.h"

#include <QPair>
#include <QVector>
#include <QWidget>

QT_BEGIN_NAMESPACE
class QLabel;
class QTimer;
QT_END_NAMESPACE

namespace Headroom {

class MemoryChartView;
class Planner;
class TrafficReplay;
struct TrafficAnswer;

/// The "Memory per GPU" tab: the answer. The stacked memory chart, the large "sessions that
/// fit", the one-sentence verdict with its notes, the figures people repeat, and "what to do
/// now" (the cheapest options that restore the sessions wanted, each applied by a link). In
/// the presenter, the three figures a customer repeats in large type over the chart instead.
/// Renders the Planner's results; edits (an advice applied) go through the Planner.
class AnswerView : public QWidget
{
    Q_OBJECT
public:
    explicit AnswerView(Planner *planner, QWidget *parent = nullptr);

    MemoryChartView *chartView() const { return m_chart; }
    /// The large "sessions that fit" figure, as shown.
    QString sessionsText() const;
    /// The figures under the chart as shown (plain text).
    QString figuresText() const;
    /// "What to do now" as shown (plain text).
    QString adviceText() const;
    /// Applies the advice's option `index` (as the link under it does): one undo step.
    bool applyAdvice(int index);
    /// The presenter's headline as shown, its non-breaking hyphens (U+2011) as "-": each figure
    /// with its caption, the traffic's and the fleet's when shown, then the what-ifs in force.
    QString headlineText() const;
    /// Shows the replays of `replay` (the Traffic tab's): once one has run, the traffic's GPUs and
    /// money a month as a line under the sentence and, in the presenter, a fourth headline figure.
    void setTrafficReplay(TrafficReplay *replay);
    /// The traffic's line as shown (empty when no replay has run).
    QString trafficText() const;
    /// The presenter's layout (on) or the window's (off): the headline over the chart with the
    /// sentence under it, no sessions figure, figures, notes nor advice; the type restyled.
    void setPresenter(bool on);

protected:
    /// The window's zoom: the large figures and the sentence follow the body text.
    void changeEvent(QEvent *event) override;
    /// The headline's figures refit their columns when the headline is resized.
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    /// The sessions figure, the sentence and its notes (line under line), and the figures grid.
    void buildSessionsAndVerdict();
    void buildFigures();
    /// "What to do now", asked 150 ms after a change (a drag asks once it pauses).
    void buildAdvice();
    /// The presenter's three figures, each a large value over its caption; hidden outside it.
    void buildHeadline();
    /// The fonts that follow the body text: the sessions figure 2.2 times it (2.6 in the
    /// presenter), the headline's values 2.6 times, and the sentence (styleVerdict).
    void restyle();
    /// The presenter's figures at 2.6 times the body text, or smaller where a figure's longest
    /// word ("session‑hour", never broken) would run past its column into the next figure:
    /// one size for every figure, the largest at which each word fits its column's width.
    void fitHeadline();
    /// The sentence's and its notes' fonts: the window's, bold when the plan does not fit, the
    /// notes italic, the sentence half as large again in the presenter.
    void styleVerdict();

    void showResult(const CapacityResult &result);
    /// The traffic's line and headline figure from a replay's answer (hidden when it has none).
    void showTraffic(const TrafficAnswer &answer);
    /// A plan with no answer: its error as the sentence, every figure and the advice cleared.
    void showFailure(const CapacityResult &result);
    /// Records the sessions that fit now (`fit`) for scenario `s`, under one basis.
    void trackFit(const Scenario &s, qint64 fit);
    /// The sessions that fitted before the last change of that count: back through the undo
    /// steps to the scenario shown, the first shown count that differs; -1 when none is known.
    qint64 previousFit() const;
    /// The presenter's figures: the sessions a TP group holds, the cost per session-hour with its
    /// unit at the figure's size, what limits it, the fleet's GPUs and month when a fleet is
    /// asked, and the what-ifs in force.
    void showHeadline(const Scenario &s, const CapacityResult &r, qint64 fit);
    /// The one-sentence verdict (bold when the sessions asked do not fit) and its warnings.
    void showVerdict(const Scenario &s, const CapacityResult &r);
    /// The four figure rows: KV per token, per session, KV for the sessions, cost.
    void showFigures(const Scenario &s, const CapacityResult &r);

    /// Asks for the options that restore the sessions wanted (the asked count,
    /// or the count before the last change when that fitted more).
    void requestAdvice();
    void showAdvice(const LeverReport &report);
    /// The advice's options as lines with their cost and an "Apply" link each (HTML).
    QString adviceLines() const;

    Planner *m_planner;
    MemoryChartView *m_chart = nullptr;
    QLabel *m_sessions = nullptr;
    /// The one-sentence answer, plain text (bold when the plan does not fit; an error in rich text):
    /// a rich-text label is laid out in a QTextDocument several times per size asked and again on
    /// every paint, each step of a drag whose sentence changes.
    QLabel *m_verdict = nullptr;
    /// The result's warnings under the sentence, one a line, plain italic text; hidden when there
    /// are none and in the presenter (which says the answer once).
    QLabel *m_notes = nullptr;
    QWidget *m_verdictBox = nullptr; ///< the sentence with its notes under it, line under line
    /// The figures under the answer, a grid of plain-text labels (a rich-text table was laid out
    /// whole, several times, on every step of a drag): per row a caption, a bold value and its detail.
    QWidget *m_figures = nullptr;
    QLabel *m_figureCaptions[4] = {};
    QLabel *m_figureValues[4] = {};
    QLabel *m_figureDetails[4] = {};
    QLabel *m_advice = nullptr;
    QTimer *m_adviceTimer = nullptr;
    QVector<LeverOption> m_adviceOptions;
    qint64 m_fit = -1;         ///< sessions per TP group that fit now
    qint64 m_previousFit = -1; ///< and before the last change of the count, as the advice was asked (-1: none under this basis)
    QVector<QPair<Scenario, qint64>> m_fitSeen; ///< the last 64 scenarios shown under m_fitBasis and their counts
    QString m_fitBasis;        ///< the model, card, TP, length law and cap both counts are under
    qint64 m_wanted = 0;       ///< what the advice restores
    QWidget *m_headline = nullptr; ///< presenter only: the three figures
    QLabel *m_headlineValues[3] = {};
    QLabel *m_headlineCaptions[3] = {};
    QLabel *m_traffic = nullptr;          ///< the traffic's answer, under the sentence (window)
    QLabel *m_trafficValue = nullptr;     ///< presenter: the traffic's GPUs, a fourth headline figure
    QLabel *m_trafficCaption = nullptr;   ///< and its money a month
    QWidget *m_presenterLines = nullptr;  ///< presenter only: the fleet and the what-ifs under the figures
    QLabel *m_fleet = nullptr;            ///< the fleet's GPUs and money a month when a fleet is asked (hidden otherwise)
    QLabel *m_whatIfs = nullptr;          ///< the what-ifs in force (whatIfsInForce), hidden when none
    bool m_verdictBold = false; ///< the sentence and its notes in bold (the plan does not fit)
    bool m_presenter = false;
};

} // namespace Headroom
