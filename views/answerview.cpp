// SPDX-License-Identifier: GPL-3.0-or-later
#include "answerview.h"

#include "chartstyle.h"
#include "memorychartview.h"
#include "planner.h"
#include "shownhtml.h"
#include "trafficreplay.h"
#include "wrappedlabel.h"
#include "scenariocommand.h"
#include <QUndoStack>
#include "plan/fleetrisk.h"
#include "plan/capacity.h"
#include "engines/enginerule.h"
#include "report/deployment.h"
#include "traffic/replaysummary.h"

#include <QBoxLayout>
#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QTextDocument>
#include <QTimer>

namespace Headroom {

using ShownHtml::asHtmlShows;

namespace {
/// A cell of the figures grid: plain text that asks for its width on one line and wraps only when
/// given less, as an HTML table cell does (QLabel's own hint for word-wrapped text is a narrower
/// shape of several lines, which a grid keeps even with room to spare).
class CellLabel : public SelectableLabel
{
public:
    CellLabel() { setTextFormat(Qt::PlainText); }
    QSize sizeHint() const override
    {
        // The width QLabel's own layout of the text needs on one line (the same QFontMetrics
        // call, unbounded), and the height it gives that width.
        const QMargins m = contentsMargins();
        const int width = fontMetrics().boundingRect(QRect(0, 0, QWIDGETSIZE_MAX, QWIDGETSIZE_MAX), int(alignment()), text()).width()
            + m.left() + m.right() + 2 * margin();
        return QSize(width, heightForWidth(width));
    }
};
} // namespace

AnswerView::AnswerView(Planner *planner, QWidget *parent)
    : QWidget(parent), m_planner(planner)
{
    auto *answerLayout = new QVBoxLayout(this);
    buildSessionsAndVerdict();
    buildFigures();
    buildAdvice();
    buildHeadline();
    m_chart = new MemoryChartView;
    answerLayout->addWidget(m_headline);
    answerLayout->addWidget(m_presenterLines);
    answerLayout->addWidget(m_chart, 1);
    answerLayout->addWidget(m_sessions);
    answerLayout->addWidget(m_verdictBox);
    answerLayout->addWidget(m_traffic);
    answerLayout->addWidget(m_figures);
    answerLayout->addWidget(m_advice);
    connect(m_planner, &Planner::resultChanged, this, &AnswerView::showResult);
    showResult(m_planner->result());
}

void AnswerView::buildSessionsAndVerdict()
{
    m_sessions = new SelectableLabel;
    m_sessions->setObjectName(QStringLiteral("sessionsLabel"));
    QFont big = m_sessions->font();
    big.setPointSizeF(big.pointSizeF() * 2.2);
    big.setBold(true);
    m_sessions->setFont(big);
    m_verdict = new SelectableLabel;
    m_verdict->setTextFormat(Qt::PlainText);
    m_notes = new SelectableLabel;
    m_notes->setTextFormat(Qt::PlainText);
    m_notes->setVisible(false);
    m_verdictBox = new QWidget;
    auto *verdictLayout = new QVBoxLayout(m_verdictBox);
    verdictLayout->setContentsMargins(0, 0, 0, 0);
    verdictLayout->setSpacing(0); // the notes on the next line, as a line break would put them
    verdictLayout->addWidget(m_verdict);
    verdictLayout->addWidget(m_notes);
    styleVerdict(); // the notes italic from the start
}

void AnswerView::buildFigures()
{
    m_figures = new QWidget;
    auto *figures = new QGridLayout(m_figures);
    figures->setContentsMargins(6, 6, 6, 6); // as the table's cellspacing was
    figures->setSpacing(6);
    figures->setColumnStretch(2, 1); // the columns as wide as their text, the rest of the width empty
    for (int row = 0; row < 4; ++row) {
        m_figureCaptions[row] = new CellLabel;
        m_figureValues[row] = new CellLabel;
        m_figureDetails[row] = new CellLabel;
        QFont bold = m_figureValues[row]->font();
        bold.setBold(true);
        m_figureValues[row]->setFont(bold);
        auto *cell = new QHBoxLayout;
        cell->setSpacing(m_figureDetails[row]->fontMetrics().horizontalAdvance(QLatin1Char(' '))); // "value (detail)"
        cell->addWidget(m_figureValues[row]);
        cell->addWidget(m_figureDetails[row], 1);
        figures->addWidget(m_figureCaptions[row], row, 0);
        figures->addLayout(cell, row, 1);
    }
}

void AnswerView::buildAdvice()
{
    m_advice = new WrappedLabel;
    m_advice->setTextFormat(Qt::RichText);
    m_advice->setAccessibleName(tr("What to do now"));
    connect(m_advice, &QLabel::linkActivated, this, [this](const QString &link) { applyAdvice(link.section(QLatin1Char(':'), 1).toInt()); });
    m_adviceTimer = new QTimer(this);
    m_adviceTimer->setSingleShot(true);
    m_adviceTimer->setInterval(150); // a drag asks once it pauses
    connect(m_adviceTimer, &QTimer::timeout, this, &AnswerView::requestAdvice);
    connect(m_planner, &Planner::adviceChanged, this, &AnswerView::showAdvice);
}

void AnswerView::buildHeadline()
{
    // Presenter's headline: the three figures a customer repeats, each a large
    // value over its caption (sessions per card, cost per session-hour, what limits it).
    m_headline = new QWidget;
    m_headline->setObjectName(QStringLiteral("presenterHeadline"));
    auto *headlineGrid = new QGridLayout(m_headline);
    headlineGrid->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < 3; ++i) {
        m_headlineValues[i] = new QLabel;
        m_headlineCaptions[i] = new QLabel;
        for (QLabel *l : {m_headlineValues[i], m_headlineCaptions[i]}) {
            l->setAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            l->setWordWrap(true);
            l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        }
        m_headlineCaptions[i]->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
        headlineGrid->addWidget(m_headlineValues[i], 0, i);
        headlineGrid->addWidget(m_headlineCaptions[i], 1, i);
        headlineGrid->setColumnStretch(i, 1);
    }
    // The traffic's GPUs and money, a fourth figure once a trace is replayed (setTrafficReplay).
    m_trafficValue = new QLabel;
    m_trafficCaption = new QLabel;
    for (QLabel *l : {m_trafficValue, m_trafficCaption}) {
        l->setAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        l->setVisible(false);
    }
    m_trafficCaption->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    headlineGrid->addWidget(m_trafficValue, 0, 3);
    headlineGrid->addWidget(m_trafficCaption, 1, 3);
    m_headline->setVisible(false);
    m_headline->installEventFilter(this);
    // Under the figures: the fleet for the sessions asked, when more are asked than one TP group
    // holds (its GPUs and money a month), and the what-ifs in force, so that no figure is read
    // as the model's or the card's own (showHeadline). Presenter only, hidden when empty.
    m_presenterLines = new QWidget;
    m_presenterLines->setObjectName(QStringLiteral("presenterFleetAndWhatIfs"));
    auto *lines = new QVBoxLayout(m_presenterLines);
    lines->setContentsMargins(0, 0, 0, 0);
    for (QLabel **l : {&m_fleet, &m_whatIfs}) {
        *l = new QLabel;
        (*l)->setAlignment(Qt::AlignHCenter);
        (*l)->setWordWrap(true);
        (*l)->setTextFormat(Qt::PlainText);
        (*l)->setTextInteractionFlags(Qt::TextSelectableByMouse);
        (*l)->setVisible(false);
        lines->addWidget(*l);
    }
    m_presenterLines->setVisible(false);
    m_traffic = new SelectableLabel;
    m_traffic->setTextFormat(Qt::PlainText);
    m_traffic->setVisible(false);
}

void AnswerView::setTrafficReplay(TrafficReplay *replay)
{
    connect(replay, &TrafficReplay::answerChanged, this, &AnswerView::showTraffic);
    // While a replay or a solve runs, the fleet on screen is the last one's: said to be, never
    // shown as the answer beside the new plan (a trial's presenter showed "1 GPU for the trace
    // on 1 replica" beside 16 GPUs for 5,000 sessions while a solve ran).
    connect(replay, &TrafficReplay::busyChanged, this, [this, replay](bool busy) {
        if (!busy || m_trafficValue->isHidden()) {
            showTraffic(replay->answer());
            return;
        }
        m_trafficValue->setText(QStringLiteral("…"));
        m_trafficCaption->setText(tr("replaying the trace: its fleet follows when the replay ends"));
        m_traffic->setText(tr("Traffic: replaying the trace; its fleet follows when the replay ends."));
    });
    showTraffic(replay->answer());
}

void AnswerView::showTraffic(const TrafficAnswer &a)
{
    const bool shown = a.ok;
    m_traffic->setText(shown ? tr("Traffic replayed, apart from the sessions asked: %1.").arg(trafficSentence(a)) : QString());
    m_traffic->setVisible(shown && !m_presenter);
    if (shown) {
        const ReplayResult &r = a.result;
        // A fleet the arrivals outrun is no answer in large type: it needs more than it has.
        m_trafficValue->setText(r.cannotKeepUp() ? tr("More than %1").arg(Units::plural(r.gpus, tr("GPU"), tr("GPUs")))
                                                 : Units::plural(r.gpus, tr("GPU"), tr("GPUs")));
        const QString money = r.fleetCostPerMonthUsd ? tr("%1 a month").arg(Units::formatUsd(*r.fleetCostPerMonthUsd)) : tr("set a price");
        const QString whose = a.users ? tr("for %1 users like the trace").arg(Units::formatDecimal(*a.users, 0))
                                      : tr("for the trace on %1").arg(Units::plural(r.replicas, tr("replica"), tr("replicas")));
        // A wrapped caption never breaks inside a unit: U+2011, the non-breaking hyphen.
        // A fleet that preempts is said to, so that the figure is never read as enough.
        const QString preempts = r.preemptions > 0 ? tr("; %1").arg(Units::plural(r.preemptions, tr("preemption"), tr("preemptions"))) : QString();
        // A fleet the arrivals outrun is said to, with its wait, as the Traffic tab's summary does.
        const QString behind = r.cannotKeepUp() ? tr("; %1 cannot keep up (p99 queue wait %2)")
                                                      .arg(Units::plural(r.gpus, tr("GPU"), tr("GPUs")), formatWaitMs(r.queueMsP99))
                                                : QString();
        m_trafficCaption->setText(tr("%1, %2%3%4").arg(money, whose, preempts, behind).replace(QLatin1Char('-'), QChar(0x2011)));
    }
    m_trafficValue->setVisible(shown);
    m_trafficCaption->setVisible(shown);
    if (auto *grid = qobject_cast<QGridLayout *>(m_headline->layout()))
        grid->setColumnStretch(3, shown ? 1 : 0);
    fitHeadline();
}

QString AnswerView::trafficText() const
{
    return m_traffic->text();
}

void AnswerView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange && m_sessions)
        restyle();
}

void AnswerView::restyle()
{
    QFont big = font();
    big.setPointSizeF(font().pointSizeF() * (m_presenter ? 2.6 : 2.2));
    big.setBold(true);
    m_sessions->setFont(big);
    fitHeadline();
    // The fleet and the what-ifs as large as the presenter's sentence, in bold.
    QFont line = font();
    line.setPointSizeF(font().pointSizeF() * 1.5);
    line.setBold(true);
    for (QLabel *l : {m_fleet, m_whatIfs})
        if (l)
            l->setFont(line);
    styleVerdict();
}

void AnswerView::fitHeadline()
{
    if (!m_trafficValue)
        return;
    QFont value = font();
    value.setPointSizeF(font().pointSizeF() * 2.6);
    value.setBold(true);
    QList<QLabel *> values(std::begin(m_headlineValues), std::end(m_headlineValues));
    if (!m_trafficValue->isHidden())
        values << m_trafficValue;
    const auto *grid = qobject_cast<QGridLayout *>(m_headline->layout());
    const int spacing = grid ? std::max(0, grid->horizontalSpacing()) : 0;
    const qsizetype columns = values.size();
    const double room = double(m_headline->contentsRect().width() - spacing * (columns - 1)) / double(columns);
    double widest = 0;
    const QFontMetricsF metrics(value);
    for (const QLabel *l : values)
        for (const QString &word : l->text().split(QLatin1Char(' '), Qt::SkipEmptyParts))
            widest = std::max(widest, metrics.horizontalAdvance(word));
    // Hidden (outside the presenter, before the first layout) the headline has no width of its own.
    if (m_headline->isVisible() && room > 0 && widest > room)
        value.setPointSizeF(std::max(font().pointSizeF(), value.pointSizeF() * room / widest * 0.97));
    for (QLabel *l : values)
        if (!(l->font() == value))
            l->setFont(value);
}

bool AnswerView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_headline && event->type() == QEvent::Resize)
        fitHeadline();
    return QWidget::eventFilter(watched, event);
}

void AnswerView::styleVerdict()
{
    // The presenter's one-sentence answer half as large again as its body text (about
    // 30 pt on a 1080-line projector), wrapped under the figures, never below the fold.
    QFont sentence = font();
    if (m_presenter)
        sentence.setPointSizeF(font().pointSizeF() * 1.5);
    sentence.setBold(m_verdictBold);
    if (!(m_verdict->font() == sentence))
        m_verdict->setFont(sentence);
    QFont notes = font();
    notes.setBold(m_verdictBold);
    notes.setItalic(true);
    if (!(m_notes->font() == notes))
        m_notes->setFont(notes);
}

void AnswerView::setPresenter(bool on)
{
    m_presenter = on;
    m_headline->setVisible(on);
    m_presenterLines->setVisible(on);
    m_sessions->setVisible(!on);
    m_figures->setVisible(!on);
    m_advice->setVisible(!on);
    m_notes->setVisible(!on && !m_notes->text().isEmpty());
    m_traffic->setVisible(!on && !m_traffic->text().isEmpty());
    // The sentence goes under the three figures (above the chart) in the presenter, back
    // under the sessions outside it.
    if (auto *answer = qobject_cast<QBoxLayout *>(layout())) {
        answer->removeWidget(m_verdictBox);
        answer->insertWidget(answer->indexOf(on ? m_presenterLines : static_cast<QWidget *>(m_sessions)) + 1, m_verdictBox);
    }
    m_verdict->setAlignment(on ? Qt::AlignHCenter : Qt::AlignLeft);
    restyle();
}

void AnswerView::showResult(const CapacityResult &r)
{
    const Scenario &s = m_planner->scenario();
    const UnitSystem u = m_planner->units();
    // Against a distribution every session at the context is a worst case no session may reach:
    // the chart draws the asked sessions at the mean, as the report does.
    // Sessions asked beyond one replica: the chart is one card of the fleet, its replica's share.
    const bool fleet = r.ok && r.distribution.fleetTargetFromSessions;
    m_chart->setResult(r, s.gpusPerReplica(), u,
                       r.ok && answersByRisk(s)
                           ? MemoryChartView::sessionsAtMean(fleet ? r.distribution.sessionsPerReplica : s.sessions, s, r.distribution)
                                 + (fleet ? tr(", one replica of %1").arg(Units::formatCount(r.distribution.fleetReplicas.value_or(0))) : QString())
                           : QString());
    m_chart->setCardNote(r.ok ? MemoryChartView::cardNote(s.gpu, r.gpuMemoryBytes, u) : QString());
    if (!r.ok) {
        showFailure(r);
        return;
    }
    const qint64 fit = s.distribution ? r.distribution.sessionsAtRisk : r.maxSessions;
    trackFit(s, fit);
    m_adviceTimer->start();
    const QString perGroup = s.gpusPerReplica() > 1 ? tr(" per %1 GPUs").arg(s.gpusPerReplica()) : QString();
    if (s.distribution)
        m_sessions->setText(Units::plural(r.distribution.sessionsAtRisk, tr("session fits"), tr("sessions fit")) + perGroup
                            + tr(" at a %1 risk").arg(Units::formatRisk(r.distribution.replicaRisk)));
    else
        m_sessions->setText(Units::plural(r.maxSessions, tr("session fits"), tr("sessions fit")) + perGroup);
    showHeadline(s, r, fit);
    showVerdict(s, r);
    showFigures(s, r);
}

void AnswerView::showFailure(const CapacityResult &r)
{
    m_sessions->setText(tr("—"));
    if (m_verdictBold) {
        m_verdictBold = false;
        styleVerdict();
    }
    m_verdict->setTextFormat(Qt::RichText);
    m_verdict->setText(ChartStyle::errorHtml(r.error.toHtmlEscaped(), this));
    m_notes->clear();
    m_notes->setVisible(false);
    for (int i = 0; i < 3; ++i) {
        m_headlineValues[i]->setText(i == 0 ? tr("—") : QString());
        m_headlineCaptions[i]->setText(QString());
    }
    for (int row = 0; row < 4; ++row)
        for (QLabel *l : {m_figureCaptions[row], m_figureValues[row], m_figureDetails[row]})
            l->clear();
    // No advice for a plan that has no answer (nor one left from the last plan that had).
    m_adviceTimer->stop();
    m_adviceOptions.clear();
    m_advice->clear();
}

void AnswerView::trackFit(const Scenario &s, qint64 fit)
{
    // "Keep N" restores what fitted before a change of a lever: never a count under another
    // model, card, TP, length law or retention cap (a count the cap held, named at the full
    // context once the cap is off, is no count this plan ever had), nor one of the machine as
    // estimated before it was measured (a calibration: the engine, the card's memory, the
    // weights and workspace, the engine's measured terms).
    const EngineSettings &e = s.engineSettings;
    const auto bytes = [](const std::optional<qint64> &v) { return v ? QString::number(*v) : QString(); };
    const QString fitBasis = QStringList{s.model.id, s.gpu.id, QString::number(s.tp), s.distribution ? s.distribution->spec : QString(),
                                         s.retainTokens ? QString::number(*s.retainTokens) : QString(), Engines::name(s.engine),
                                         bytes(s.gpuMemoryBytes), bytes(s.weightsBytes), bytes(s.workspaceBytes), bytes(e.kvCacheMemory),
                                         bytes(e.activationPeak), bytes(e.nonTorch), bytes(e.cudaGraph), bytes(e.freeMemoryBefore),
                                         bytes(e.freeMemoryAfter)}
                              .join(QLatin1Char('\n'));
    // Each scenario's count as shown, so that the count before the last change is found by
    // walking the undo history back from the scenario shown (previousFit), after an undo too (a
    // trial's Undo of "KV fp8" left "keep 7 sessions", the undone state's count).
    if (fitBasis != m_fitBasis) {
        m_fitBasis = fitBasis;
        m_fitSeen.clear();
    }
    const auto same = std::find_if(m_fitSeen.begin(), m_fitSeen.end(), [&s](const QPair<Scenario, qint64> &x) { return x.first == s; });
    if (same != m_fitSeen.end())
        m_fitSeen.erase(same);
    m_fitSeen.append(qMakePair(s, fit));
    if (m_fitSeen.size() > 64)
        m_fitSeen.removeFirst();
    m_fit = fit;
}

qint64 AnswerView::previousFit() const
{
    // Back through the undo steps that led to the scenario shown (the stack settled: the advice
    // asks 150 ms after a change), to the first whose count differs from the one shown.
    const QUndoStack *stack = m_planner->undoStack();
    Scenario at = m_planner->scenario();
    for (int step = stack->index() - 1; step >= 0; --step) {
        const auto *c = dynamic_cast<const ScenarioCommand *>(stack->command(step));
        if (!c || !(c->after() == at))
            return -1;
        const auto seen = std::find_if(m_fitSeen.cbegin(), m_fitSeen.cend(), [c](const QPair<Scenario, qint64> &x) { return x.first == c->before(); });
        if (seen == m_fitSeen.cend())
            return -1; // shown under another basis, or long ago
        if (seen->second != m_fit)
            return seen->second;
        at = c->before();
    }
    return -1;
}

void AnswerView::showHeadline(const Scenario &s, const CapacityResult &r, qint64 fit)
{
    // Whole sessions only (a session under TP spans its group: "15 sessions per 4 GPUs", never
    // "3.75 per card"), and the money with its unit at the figure's size: "$8.81" in large type
    // over a small "per 1,000 session-hours" was read as $8.81 a session-hour.
    const QString perHour = r.costPerSessionHourUsd ? Units::formatUsdPer(*r.costPerSessionHourUsd, tr("session-hour")) : QString();
    const QString headline[3][2] = {
        {Units::formatCount(fit), s.gpusPerReplica() > 1 ? tr("sessions per %1 GPUs (one replica)").arg(s.gpusPerReplica()) : fit == 1 ? tr("session per card") : tr("sessions per card")},
        {perHour.isEmpty() ? tr("no price") : perHour,
         perHour.isEmpty() ? tr("set a price for the cost per session-hour") : tr("each session's cost, every card full")},
        {r.shortfallBytesPerGpu > 0 ? tr("Weights") : r.runningCap ? Engines::rule(s.engine).title() : tr("KV cache"),
         r.shortfallBytesPerGpu > 0 ? tr("and workspace exceed the card")
         : r.runningCap             ? tr("%1 limits it (the KV cache holds %2)").arg(r.runningCap->setting, Units::formatCount(r.kvSessions))
                                    : tr("budget is what limits it")}};
    for (int i = 0; i < 3; ++i) {
        // A wrapped figure or caption never breaks inside a unit ("session-/hour"): U+2011, the non-breaking hyphen.
        m_headlineValues[i]->setText(QString(headline[i][0]).replace(QLatin1Char('-'), QChar(0x2011)));
        m_headlineCaptions[i]->setText(QString(headline[i][1]).replace(QLatin1Char('-'), QChar(0x2011)));
    }
    fitHeadline();
    // The fleet, where more sessions are asked than one TP group holds (a target, or sessions
    // past one group): its GPUs, and its money a month (the report's deployment).
    const bool fleetAsked = s.targetSessions || r.distribution.fleetTargetFromSessions;
    const Deployment dep = fleetAsked ? Deployment::of(s, r) : Deployment{};
    m_fleet->setText(fleetAsked && dep.perGroup > 0
                         ? tr("Fleet for the %1 asked: %2, %3%4")
                               .arg(Units::plural(dep.sessions, tr("session"), tr("sessions")), Units::plural(dep.gpus, tr("GPU"), tr("GPUs")),
                                    dep.perMonth ? tr("%1 a month").arg(Units::formatUsd(*dep.perMonth)) : tr("set a price for its money a month"),
                                    dep.marginWords(s.marginFraction))
                         : QString());
    const QStringList ifs = whatIfsInForce(s, m_planner->units());
    m_whatIfs->setText(ifs.isEmpty() ? QString() : tr("What-ifs in force: %1").arg(ifs.join(QStringLiteral("; "))));
    for (QLabel *l : {m_fleet, m_whatIfs})
        l->setVisible(!l->text().isEmpty());
}

void AnswerView::showVerdict(const Scenario &s, const CapacityResult &r)
{
    // Set in a plain format, font and text only when they change: QLabel lays out only then.
    if (m_verdictBold == r.askedFit) {
        m_verdictBold = !r.askedFit;
        styleVerdict();
    }
    m_verdict->setTextFormat(Qt::PlainText);
    // As the rich text they replace showed them: the sentence, then each warning on a line of its own.
    // Which risk the answer holds, each replica's or the whole fleet's, after the sentence.
    const QString fleet = FleetRisk::words(s, r);
    m_verdict->setText(asHtmlShows(capacityVerdict(s, r, m_planner->units())
                                   + (fleet.isEmpty() ? QString() : QLatin1Char(' ') + tr("Overflow risk: %1.").arg(fleet))));
    QStringList notes;
    for (const QString &w : r.warnings)
        notes << asHtmlShows(w);
    m_notes->setText(notes.join(QLatin1Char('\n')));
    m_notes->setVisible(!m_presenter && !r.warnings.isEmpty()); // the presenter says the answer once, without the notes
}

void AnswerView::showFigures(const Scenario &s, const CapacityResult &r)
{
    const UnitSystem u = m_planner->units();
    auto fmt = [u](qint64 b) { return Units::formatBytes(b, u); };
    const QString cost = r.costPerSessionHourUsd ? Units::formatUsdPer(*r.costPerSessionHourUsd, tr("session-hour"))
        : s.effectivePrice()                      ? tr("— (no session fits)")
                                                  : tr("set a price");
    // Every per-session figure names the length it is for, as the derivation does.
    const QString basis = sessionBasis(s, r);
    const QString perGpu = s.gpusPerReplica() > 1 ? tr(" per GPU") : QString();
    // With a draft model its own KV shares the pool: the per-token row names both, target
    // first, so the target's figure is never read as the whole.
    const bool draft = r.draftKvBytesPerTokenPerGpu > 0;
    const QString perToken = draft ? tr("KV per token%1, target + draft").arg(perGpu) : tr("KV per token%1").arg(perGpu);
    const QString perTokenExact = draft ? tr("%1 + %2").arg(Units::formatExactBytes(r.kvBytesPerTokenPerGpu), Units::formatExactBytes(r.draftKvBytesPerTokenPerGpu))
                                        : Units::formatExactBytes(r.kvBytesPerTokenPerGpu);
    const QString perTokenRounded = draft ? tr("%1 + %2").arg(fmt(r.kvBytesPerTokenPerGpu), fmt(r.draftKvBytesPerTokenPerGpu)) : fmt(r.kvBytesPerTokenPerGpu);
    // Caption, value (bold) and its detail, row by row; QLabel::setText lays out only a changed text.
    const QStringList figures[4] = {
        {perToken, perTokenExact, tr("(%1)").arg(perTokenRounded)},
        {tr("Per session at %1%2").arg(basis, perGpu), fmt(r.reservedSessionBytesPerGpu), tr("(%1)").arg(Units::formatExactBytes(r.reservedSessionBytesPerGpu))},
        r.distribution.fleetTargetFromSessions
            ? QStringList{(s.distribution ? tr("KV for one replica's %1 at the mean") : tr("KV for one replica's %1 at %2").arg(QStringLiteral("%1"), basis))
                              .arg(Units::plural(r.distribution.sessionsPerReplica, tr("session"), tr("sessions"))),
                          fmt(r.distribution.kvBytesForReplicaSessionsAtMeanPerGpu),
                          tr("of the %1 budget%2; %3 replicas hold the %4 asked")
                              .arg(fmt(r.kvBudgetBytesPerGpu), perGpu, Units::formatCount(r.distribution.fleetReplicas.value_or(0)),
                                   Units::formatCount(s.sessions))}
            : QStringList{tr("KV for %1 at %2").arg(Units::plural(s.sessions, tr("session"), tr("sessions")), basis), fmt(r.kvBytesForSessionsPerGpu),
                          tr("of the %1 budget%2").arg(fmt(r.kvBudgetBytesPerGpu), perGpu)},
        {tr("Cost"), cost, QString()}};
    for (int row = 0; row < 4; ++row) {
        m_figureCaptions[row]->setText(figures[row][0]);
        m_figureValues[row]->setText(figures[row][1]);
        m_figureDetails[row]->setText(figures[row][2]);
    }
}

void AnswerView::requestAdvice()
{
    // Restore what was asked for, or what fitted before the last change, whichever is more.
    m_previousFit = previousFit();
    m_wanted = std::max({m_planner->scenario().sessions, m_previousFit, qint64(1)});
    m_planner->requestAdvice(LeverTarget{});
}

void AnswerView::showAdvice(const LeverReport &report)
{
    const Scenario &s = m_planner->scenario();
    if (!m_planner->result().ok) // asked before the plan went wrong
        return;
    m_adviceOptions.clear();
    QString text = QStringLiteral("<b>%1</b> ").arg(tr("What to do now:"));
    const DistributionFigures &d = m_planner->result().distribution;
    if (d.fleetTargetFromSessions && d.fleetGpus) { // the fleet answers the sessions asked
        // With the GPUs the admission margin needs beside it, as the fleet line above says (a
        // trial read "on 16 GPUs" here and "17 GPUs with the margin" in presenter).
        m_advice->setText(text + tr("deploy the fleet: %1 on %2 (%3 replicas)%4; Levers prices a cheaper replica.")
                                     .arg(Units::plural(s.sessions, tr("session"), tr("sessions")),
                                          Units::plural(*d.fleetGpus, tr("GPU"), tr("GPUs")), Units::formatCount(d.fleetReplicas.value_or(0)),
                                          Deployment::of(s, m_planner->result()).marginWords(s.marginFraction)));
        return;
    }
    if (m_fit >= m_wanted) {
        m_advice->setText(text + tr("nothing: %1 fit (%2 asked).")
                                     .arg(Units::plural(m_fit, tr("session"), tr("sessions")), Units::formatCount(s.sessions)));
        return;
    }
    // The cheapest options that hold the sessions wanted and keep the requirement.
    for (const LeverOption &o : report.options) {
        if (o.sessionsPerGroup >= m_wanted && o.offerable() && m_adviceOptions.size() < 3)
            m_adviceOptions << o;
    }
    text += tr("%1 %2 %3:")
                .arg(m_wanted == m_previousFit && m_previousFit > s.sessions ? tr("keep") : tr("fit"),
                     Units::plural(m_wanted, tr("session"), tr("sessions")),
                     s.distribution ? tr("at a %1 risk").arg(Units::formatRisk(m_planner->result().distribution.replicaRisk))
                                    : tr("at %1").arg(sessionBasis(s, m_planner->result()))); // the length the figures are for: the cap, when one holds them
    if (m_adviceOptions.isEmpty()) {
        m_advice->setText(text + QLatin1Char(' ') + tr("no single option does it without changing the requirement; see Levers."));
        return;
    }
    m_advice->setText(text + adviceLines());
}

QString AnswerView::adviceLines() const
{
    const Scenario &s = m_planner->scenario();
    const std::optional<double> price = s.effectivePrice();
    QString text;
    for (int i = 0; i < m_adviceOptions.size(); ++i) {
        const LeverOption &o = m_adviceOptions.at(i);
        QString cost = o.costPerSessionHourUsd ? Units::formatUsdPer(*o.costPerSessionHourUsd, tr("session-hour"))
                                               : tr("unpriced");
        const std::optional<double> optionPrice = o.scenario.effectivePrice();
        if (price && optionPrice) {
            const double extra = *optionPrice * o.scenario.gpusPerReplica() - *price * s.gpusPerReplica();
            if (extra > 0.005)
                cost += tr(", +%1 an hour").arg(Units::formatUsd(extra));
        }
        text += QStringLiteral("<br>• %1 — %2 (%3) <a href=\"apply:%4\">%5</a>")
                    .arg(o.option.toHtmlEscaped(), cost, o.sideEffect.section(QLatin1Char(';'), 0, 0).toHtmlEscaped())
                    .arg(i)
                    .arg(tr("Apply"));
    }
    return text;
}

bool AnswerView::applyAdvice(int index)
{
    if (index < 0 || index >= m_adviceOptions.size())
        return false;
    const LeverOption o = m_adviceOptions.at(index);
    m_planner->edit(o.scenario, ScenarioCommand::Other, tr("Apply %1").arg(o.option));
    return true;
}

QString AnswerView::adviceText() const
{
    QTextDocument doc;
    doc.setHtml(m_advice->text());
    return doc.toPlainText();
}

QString AnswerView::sessionsText() const
{
    return m_sessions->text();
}

QString AnswerView::figuresText() const
{
    QStringList rows;
    for (int row = 0; row < 4; ++row) {
        const QString detail = m_figureDetails[row]->text();
        rows << m_figureCaptions[row]->text() + QLatin1Char('\n') + m_figureValues[row]->text() + (detail.isEmpty() ? QString() : QLatin1Char(' ') + detail);
    }
    return rows.join(QLatin1Char('\n'));
}

QString AnswerView::headlineText() const
{
    QStringList parts;
    for (int i = 0; i < 3; ++i)
        parts << m_headlineValues[i]->text() + QLatin1Char(' ') + m_headlineCaptions[i]->text();
    if (!m_trafficValue->isHidden())
        parts << m_trafficValue->text() + QLatin1Char(' ') + m_trafficCaption->text();
    for (QLabel *l : {m_fleet, m_whatIfs})
        if (!l->isHidden())
            parts << l->text();
    return parts.join(QStringLiteral(" · ")).replace(QChar(0x2011), QLatin1Char('-'));
}

} // namespace Headroom
