// SPDX-License-Identifier: GPL-3.0-or-later
#include "leversview.h"
#include "chartstyle.h"

#include "core/inputerror.h"
#include "plan/capacity.h"
#include "planner.h"
#include "tokenspinbox.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

namespace Headroom {

namespace {
// Wrapped cells measured against a slightly narrower width than the column: some
// styles (Adwaita) paint wrapped text in less width than they measure it with,
// which left the last line of a long side effect cut to "…".
class WrappedCellDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        const auto *view = qobject_cast<const QTableView *>(option.widget);
        if (!view)
            return size;
        QStyleOptionViewItem o = option;
        initStyleOption(&o, index);
        const int width = view->columnWidth(index.column()) - 4 * o.fontMetrics.averageCharWidth();
        const QRect text = o.fontMetrics.boundingRect(QRect(0, 0, std::max(1, width), 1'000'000), Qt::TextWordWrap, o.text);
        size.setHeight(std::max(size.height(), text.height() + o.fontMetrics.height() / 2));
        return size;
    }
};
} // namespace

LeversView::LeversView(Planner *planner, QWidget *parent)
    : QWidget(parent), m_planner(planner)
{
    QFormLayout *targets = buildTargets();
    buildTable();
    QHBoxLayout *failure = buildDiagnosis();
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(targets);
    layout->addWidget(m_answer);
    layout->addWidget(m_table, 1);
    layout->addWidget(new QLabel(tr("<b>Diagnosis</b>")));
    layout->addLayout(failure);
    layout->addWidget(m_diagnosis);
    connectSignals();
}

QFormLayout *LeversView::buildTargets()
{
    m_targetSessions = new QDoubleSpinBox;
    m_targetSessions->setRange(0, 1e6);
    m_targetSessions->setDecimals(2);
    m_targetSessions->setSpecialValueText(tr("any"));
    m_targetSessions->setSuffix(tr(" sessions per GPU"));
    m_maxItl = new QDoubleSpinBox;
    m_maxItl->setRange(0, 1e5);
    m_maxItl->setDecimals(1);
    m_maxItl->setSpecialValueText(tr("200 ms (default ceiling)"));
    m_maxItl->setSuffix(tr(" ms per token"));
    m_prefix = new TokenSpinBox;
    m_prefix->setRange(0, 1'000'000'000'000);
    m_prefix->setFieldName(tr("Shared system prompt"));
    m_prefix->setSpecialValueText(tr("none"));
    m_prefix->setSuffix(tr(" tokens"));
    m_prefix->setToolTip(tr("A system prompt every session shares: with prefix caching it is stored once per GPU"));
    for (QAbstractSpinBox *b : std::initializer_list<QAbstractSpinBox *>{m_targetSessions, m_maxItl})
        b->setKeyboardTracking(false);
    auto *targets = new QFormLayout;
    // The boxes take the width there is: a style whose buttons are wider than it reports
    // (Adwaita) would otherwise cut "200 ms (default ceiling)".
    targets->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    targets->addRow(tr("Target sessions per GPU, at least"), m_targetSessions);
    targets->addRow(tr("Target latency per token, at most"), m_maxItl);
    targets->addRow(tr("Shared system prompt"), m_prefix);
    return targets;
}

void LeversView::buildTable()
{
    // The option with its lever and the price paid on a second line, so a long
    // side effect wraps in the widest column instead of being cut ("a r.").
    m_table = new QTableWidget(0, 6);
    // The figures' headers on two lines, so the option's column keeps its width under a larger font
    // (issue 31: at 2 points more it had 75 px, its rows 260 px tall, one in view).
    m_table->setHorizontalHeaderLabels({tr("Option and price paid"), tr("Sessions"), tr("Change\nvs now"), tr("$ per\nsession-hour"),
                                        tr("$ per\nM tokens"), tr("ms per\ntoken")});
    // The change is in sessions per GPU against the plan now: the header names its base, the tooltip says which.
    m_table->horizontalHeaderItem(2)->setToolTip(tr("Sessions per GPU against the plan now"));
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setWordWrap(true);
    m_table->setItemDelegateForColumn(0, new WrappedCellDelegate(m_table));
    // The scroll bar's arrival must not narrow the wrapped column after its rows were sized (a cut "…").
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    m_table->setTextElideMode(Qt::ElideNone);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setTabKeyNavigation(false); // read-only: Tab leaves the table, the arrows walk its cells
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_answer = new QLabel;
    m_answer->setWordWrap(true);
    // Never squeezed to one line by a short window (the table gives up the room): a larger font
    // cut the answer after "per 1,000 session-".
    m_answer->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    m_answer->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_answer->font();
    bold.setBold(true);
    m_answer->setFont(bold);
}

QHBoxLayout *LeversView::buildDiagnosis()
{
    m_failedSessions = new TokenSpinBox;
    m_failedSessions->setRange(1, 1'000'000'000);
    m_failedSessions->setValue(12);
    m_failedSessions->setSuffix(tr(" sessions"));
    m_failedSessions->setFieldName(tr("Failed at sessions"));
    m_failedTokens = new TokenSpinBox;
    m_failedTokens->setRange(1, 1'000'000'000'000);
    m_failedTokens->setValue(100'000);
    m_failedTokens->setSuffix(tr(" tokens each"));
    m_failedTokens->setFieldName(tr("Tokens each"));
    auto *diagnoseButton = new QPushButton(tr("D&iagnose"));
    m_diagnosis = new QLabel;
    m_diagnosis->setWordWrap(true);
    m_diagnosis->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *failure = new QHBoxLayout;
    failure->addWidget(new QLabel(tr("It failed at")));
    failure->addWidget(m_failedSessions);
    failure->addWidget(new QLabel(tr("of about")));
    failure->addWidget(m_failedTokens);
    failure->addWidget(diagnoseButton);
    failure->addStretch();
    connect(diagnoseButton, &QPushButton::clicked, this, [this] { diagnose(m_failedSessions->value(), m_failedTokens->value()); });
    return failure;
}

void LeversView::connectSignals()
{
    for (QDoubleSpinBox *b : {m_targetSessions, m_maxItl})
        connect(b, &QDoubleSpinBox::valueChanged, this, &LeversView::refresh);
    connect(m_prefix, &TokenSpinBox::valueChanged, this, &LeversView::refresh);
    connect(m_planner, &Planner::resultChanged, this, [this] {
        if (isVisible())
            refresh();
    });
    connect(m_planner, &Planner::leversChanged, this, &LeversView::showReport);
    // Wrapped rows grow or shrink with the option column, never cut short.
    connect(m_table->horizontalHeader(), &QHeaderView::sectionResized, m_table, &QTableWidget::resizeRowsToContents);
}

void LeversView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
}

void LeversView::refresh()
{
    LeverTarget target;
    if (m_targetSessions->value() > 0)
        target.sessionsPerGpu = m_targetSessions->value();
    if (m_maxItl->value() > 0)
        target.maxItlMs = m_maxItl->value();
    m_planner->requestLevers(target, m_prefix->value(), 256'000'000'000);
}

void LeversView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        showReport(m_report); // the highlight follows the palette
}

void LeversView::showReport(const LeverReport &report)
{
    m_report = report;
    const QPalette pal = palette();
    // The cheapest row: the palette's highlight, softened into the base so its text stays readable.
    const QColor cheapestBack = ChartStyle::blend(pal.color(QPalette::Base), pal.color(QPalette::Highlight), 0.35);
    const QColor dim = pal.color(QPalette::Disabled, QPalette::Text);
    m_table->setRowCount(int(report.options.size()));
    for (int i = 0; i < report.options.size(); ++i) {
        const LeverOption &o = report.options.at(i);
        const QString change = std::isfinite(o.change) ? QStringLiteral("%1%2%").arg(o.change >= 0 ? QStringLiteral("+") : QString())
                                                             .arg(o.change * 100, 0, 'f', 0)
                                                       : tr("from none");
        // A changed requirement is said first; the side effect follows unless it says the same.
        const QString effect = !o.changesRequirement ? o.sideEffect
            : o.lever == QLatin1String("attention")  ? tr("changes the requirement: %1").arg(o.changesRequirementReason)
                                                     : tr("changes the requirement: %1; %2").arg(o.changesRequirementReason, o.sideEffect);
        // One the engine or card cannot run says so first: a what-if for another engine or card.
        const QString option = o.runnable ? tr("%1 (%2)\n%3").arg(o.option, o.lever, effect)
                                          : tr("%1 (%2)\nnot runnable on this engine or card (a what-if; the tooltip says why); %3")
                                                .arg(o.option, o.lever, effect);
        const QString tip = !o.runnable ? tr("Not runnable, a what-if for another engine or card: %1").arg(o.runnableReason)
                          : o.changesRequirement ? tr("Changes the requirement: %1").arg(o.changesRequirementReason)
                          : !o.missesTargetReason.isEmpty() ? tr("Misses the target: %1; %2").arg(o.missesTargetReason, effect)
                                                           : effect;
        // Sessions as the whole count a TP group holds ("15 per 4 GPUs"), never a quotient per GPU.
        const QStringList cells = {option, sessionsPerGpus(o.sessionsPerGroup, o.scenario.gpusPerReplica(), false), change,
                                   o.costPerSessionHourUsd && o.sessionsPerGroup > 0 ? Units::formatUsd(*o.costPerSessionHourUsd) : QStringLiteral("—"),
                                   o.costPerMillionTokensUsd ? Units::formatUsd(*o.costPerMillionTokensUsd) : QStringLiteral("—"),
                                   o.itlMs ? Units::formatDecimal(*o.itlMs, 1) : QStringLiteral("—")};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells.at(c));
            item->setToolTip(tip);
            if (o.cheapest) {
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
                item->setBackground(cheapestBack);
                item->setForeground(pal.color(QPalette::Text));
            } else if (!o.offerable()) {
                QFont f = item->font();
                f.setItalic(o.changesRequirement || !o.runnable);
                item->setFont(f);
                item->setForeground(dim);
            }
            m_table->setItem(i, c, item);
        }
    }
    m_answer->setText(report.answer);
}

QString LeversView::answer() const
{
    return m_answer->text();
}

QString LeversView::diagnose(qint64 sessions, qint64 tokens)
{
    try {
        m_diagnosis->setText(m_planner->diagnose(sessions, tokens).sentence);
    } catch (const InputError &e) {
        m_diagnosis->setText(e.text());
    }
    return m_diagnosis->text();
}

} // namespace Headroom
