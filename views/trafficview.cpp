// SPDX-License-Identifier: GPL-3.0-or-later
#include "trafficview.h"
#include "traffic/replaysummary.h"

#include "chartstyle.h"
#include "planner.h"
#include "tokenspinbox.h"
#include "trafficchartview.h"
#include "wrappedlabel.h"
#include "io/sampletraces.h"

#include <QDir>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

namespace Headroom {

namespace {

// A box of whole figures from 0 to `max` in steps of `step`, 0 reading `zero` (the setting's
// "off"), with its unit `suffix` and `tip`; it applies when editing ends, not per keystroke.
QDoubleSpinBox *wholeBox(double max, double step, const QString &zero, const QString &suffix, const QString &tip)
{
    auto *b = new QDoubleSpinBox;
    b->setRange(0, max);
    b->setDecimals(0);
    b->setSingleStep(step);
    b->setSpecialValueText(zero);
    b->setSuffix(suffix);
    b->setKeyboardTracking(false);
    b->setToolTip(tip);
    return b;
}

QLabel *buddyLabel(const QString &text, QWidget *buddy)
{
    auto *l = new QLabel(text);
    l->setBuddy(buddy);
    return l;
}
} // namespace

TrafficView::TrafficView(Planner *planner, TrafficReplay *replay, QWidget *parent)
    : QWidget(parent), m_planner(planner), m_replay(replay)
{
    QWidget *inputs = buildInputs();
    m_chart = new TrafficChartView;
    m_answer = new SelectableLabel;
    m_answer->setTextFormat(Qt::PlainText);
    QFont bold = m_answer->font();
    bold.setBold(true);
    m_answer->setFont(bold);
    m_summary = new SelectableLabel;
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setAccessibleName(tr("Replay summary"));
    auto *layout = new QVBoxLayout(this);
    // The answer first, where a 720-line screen shows it without scrolling; the chart and the
    // summary that back it under it.
    layout->addWidget(inputs);
    layout->addWidget(m_answer);
    layout->addWidget(m_chart, 1);
    layout->addWidget(m_summary);
    connect(m_replay, &TrafficReplay::answerChanged, this, &TrafficView::showAnswer);
    connect(m_replay, &TrafficReplay::traceFailed, this, &TrafficView::showTraceError);
    connect(m_replay, &TrafficReplay::busyChanged, this, &TrafficView::showBusy);
    connect(m_planner, &Planner::unitsChanged, this, [this] { showAnswer(m_replay->answer()); });
    showAnswer(m_replay->answer());
}

QHBoxLayout *TrafficView::buildTraceRow()
{
    m_path = new QLineEdit;
    m_path->setPlaceholderText(tr("a trace with arrivals: Mooncake .jsonl, Azure or BurstGPT .csv"));
    m_path->setClearButtonEnabled(true);
    // No mnemonic: Alt+O is Sources' (beside this tab), and every other letter of "Open" is taken.
    auto *open = new QPushButton(tr("Open…"));
    open->setToolTip(tr("Choose a trace file (.jsonl or .csv)"));
    auto *samples = new QPushButton(tr("Samples"));
    samples->setToolTip(tr("The sample traces shipped with Headroom"));
    auto *menu = new QMenu(samples);
    for (const SampleTrace &t : sampleTraces())
        menu->addAction(t.title, this, [this, path = t.path] { openTrace(path); });
    if (menu->isEmpty())
        menu->addAction(tr("No sample trace installed"))->setEnabled(false);
    samples->setMenu(menu);
    auto *traceRow = new QHBoxLayout;
    traceRow->setContentsMargins(0, 0, 0, 0);
    traceRow->addWidget(m_path, 1);
    traceRow->addWidget(open);
    traceRow->addWidget(samples);
    connect(m_path, &QLineEdit::editingFinished, this, [this] {
        if (m_path->text().trimmed() != m_replay->inputs().path)
            applyInputs();
    });
    connect(open, &QPushButton::clicked, this, &TrafficView::chooseFile);
    return traceRow;
}

QWidget *TrafficView::buildInputs()
{
    QHBoxLayout *traceRow = buildTraceRow();
    m_replicas = new QSpinBox;
    m_replicas->setRange(1, 65536);
    m_replicas->setValue(1);
    m_replicas->setKeyboardTracking(false);
    m_replicas->setToolTip(tr("Data-parallel replicas of the plan (TP × PP GPUs each); conversation c runs on replica c mod R"));
    m_users = new TokenSpinBox;
    m_users->setRange(0, 1'000'000'000);
    m_users->setSpecialValueText(tr("as recorded"));
    m_users->setSuffix(tr(" users"));
    m_users->setFieldName(tr("Users"));
    m_users->setToolTip(tr("N users like this trace: the trace's conversation arrivals multiplied until N conversations are alive on average at unloaded speed (each request timed alone on a replica)"));
    m_keepIdle = wholeBox(31.0 * 86400.0, 60, tr("until evicted"), tr(" s"),
                          tr("An idle conversation's prefix blocks are dropped after this long (else kept until evicted)"));
    m_maxQueue = wholeBox(1e7, 100, tr("any"), tr(" ms"), tr("The solve's target for the p99 queue wait (any: keeping up with no preemption is the only target)"));
    m_solve = new QPushButton(tr("So&lve min replicas"));
    m_solve->setToolTip(tr("The fewest replicas that keep up with the arrivals, with no preemption (and the p99 queue wait beside it, when set)"));

    m_error = new SelectableLabel;
    m_error->setTextFormat(Qt::RichText);
    m_error->setVisible(false);
    m_status = new QLabel;
    m_status->setVisible(false);

    // Three lines, so that the chart keeps the height a 720-line screen has: the trace; the
    // replay's inputs side by side; the solve's target and its button.
    auto *box = new QWidget;
    auto *grid = new QGridLayout(box);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(buddyLabel(tr("Tr&ace"), m_path), 0, 0);
    grid->addLayout(traceRow, 0, 1, 1, 5);
    grid->addWidget(m_error, 1, 1, 1, 5);
    grid->addWidget(buddyLabel(tr("&Replicas"), m_replicas), 2, 0);
    grid->addWidget(m_replicas, 2, 1);
    grid->addWidget(buddyLabel(tr("&Users"), m_users), 2, 2, Qt::AlignRight);
    grid->addWidget(m_users, 2, 3);
    grid->addWidget(buddyLabel(tr("Keep &idle"), m_keepIdle), 2, 4, Qt::AlignRight);
    grid->addWidget(m_keepIdle, 2, 5);
    grid->addWidget(buddyLabel(tr("Ma&x p99 queue wait"), m_maxQueue), 3, 0, 1, 2);
    grid->addWidget(m_maxQueue, 3, 3);
    grid->addWidget(m_solve, 3, 4, 1, 2);
    grid->addWidget(m_status, 4, 1, 1, 5);
    for (int c : {1, 3, 5})
        grid->setColumnStretch(c, 1);

    connect(m_replicas, &QSpinBox::valueChanged, this, &TrafficView::applyInputs);
    connect(m_users, &TokenSpinBox::valueChanged, this, &TrafficView::applyInputs);
    connect(m_keepIdle, &QDoubleSpinBox::valueChanged, this, &TrafficView::applyInputs);
    connect(m_solve, &QPushButton::clicked, this, [this] {
        applyInputs();
        m_replay->solveMinReplicas(m_maxQueue->value() > 0 ? std::optional<double>(m_maxQueue->value()) : std::nullopt);
    });
    return box;
}

void TrafficView::openTrace(const QString &path)
{
    m_path->setText(QDir::toNativeSeparators(path));
    applyInputs();
}

void TrafficView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_path->text().trimmed().isEmpty() || !m_planner->scenario().distribution)
        return;
    // A trace's distribution keeps its path as its spec, with or without --distribution's "trace:".
    QString spec = m_planner->scenario().distribution->spec;
    if (spec.startsWith(QLatin1String("trace:")))
        spec = spec.mid(6);
    if (QFileInfo(spec).isFile())
        openTrace(spec);
}

void TrafficView::chooseFile()
{
    const QString start = m_path->text().isEmpty() ? QDir::homePath() : QFileInfo(m_path->text()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open trace"), start, tr("Traces (*.jsonl *.csv);;All files (*)"));
    if (!path.isEmpty())
        openTrace(path);
}

void TrafficView::applyInputs()
{
    TrafficInputs in;
    in.path = QDir::fromNativeSeparators(m_path->text().trimmed());
    in.replicas = m_replicas->value();
    if (m_users->value() > 0)
        in.users = double(m_users->value());
    if (m_keepIdle->value() > 0)
        in.keepIdleSeconds = m_keepIdle->value();
    if (in.path != m_replay->inputs().path) {
        m_errorText.clear();
        m_error->setVisible(false);
    }
    m_replay->setInputs(in);
}

void TrafficView::showBusy(bool busy)
{
    m_status->setText(tr("Replaying the trace…"));
    m_status->setVisible(busy);
}

void TrafficView::showTraceError(const QString &path, const QString &error)
{
    // The trace before stays replayed; the field keeps what was typed, with the reason under it.
    const QString kept = m_replay->loadedPath();
    m_errorText = kept.isEmpty() ? error : tr("%1 (still showing %2)").arg(error, QFileInfo(kept).fileName());
    m_error->setText(ChartStyle::errorHtml(m_errorText.toHtmlEscaped(), this));
    m_error->setVisible(true);
    m_error->setToolTip(path);
}

void TrafficView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && !m_errorText.isEmpty())
        m_error->setText(ChartStyle::errorHtml(m_errorText.toHtmlEscaped(), this));
}

void TrafficView::showAnswer(const TrafficAnswer &a)
{
    // The solve's count becomes the replicas asked (without replaying again).
    if (a.ok && m_replicas->value() != a.result.replicas) {
        const QSignalBlocker block(m_replicas);
        m_replicas->setValue(a.result.replicas);
    }
    m_rows.clear();
    if (!a.ok) {
        m_chart->clear(a.path.isEmpty() ? tr("No trace yet: choose one above") : tr("No replay: see the reason below"));
        m_answer->setText(a.error);
        m_answer->setVisible(!a.error.isEmpty());
        m_summary->clear();
        return;
    }
    const ReplayResult &r = a.result;
    const UnitSystem u = m_planner->units();
    m_chart->show(r, a.kvBudgetBytesPerGpu, u);
    // The rows in `headroom replay`'s words: one wording for both (model/traffic/replaysummary.h).
    const QVector<QPair<QString, QString>> rows = replaySummary(
        r, ReplaySummaryInput{a.conversationRule, a.traceConversations, a.sharedPrefixTokens, a.sharedPrefixBlocks, a.multiplier, a.users, a.tp, 1,
                              a.gpuName, a.kvBudgetBytesPerGpu,
                              a.solved ? std::optional<QString>(solvedForText(0, a.maxQueueMs)) : std::nullopt, u});
    QString html = QStringLiteral("<table cellspacing=2>");
    for (const auto &row : rows) {
        html += QStringLiteral("<tr><td style='padding-right:8px' valign=top><b>%1</b></td><td>%2</td></tr>").arg(row.first.toHtmlEscaped(), row.second.toHtmlEscaped());
        m_rows << row.first + QStringLiteral(": ") + row.second;
    }
    html += QStringLiteral("</table>");
    m_summary->setText(html);
    m_answer->setText(trafficSentence(a) + QLatin1Char('.'));
    m_answer->setVisible(true);
}

QString TrafficView::answerText() const
{
    return m_answer->isHidden() ? QString() : m_answer->text();
}

QString TrafficView::summaryText() const
{
    return m_rows.join(QLatin1Char('\n'));
}

QString TrafficView::errorText() const
{
    return m_errorText;
}

} // namespace Headroom
