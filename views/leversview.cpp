// SPDX-License-Identifier: GPL-3.0-or-later
#include "leversview.h"

#include "core/inputerror.h"
#include "planner.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

namespace Headroom {

LeversView::LeversView(Planner *planner, QWidget *parent)
    : QWidget(parent), m_planner(planner)
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
    m_prefix = new QSpinBox;
    m_prefix->setRange(0, 10'000'000);
    m_prefix->setSpecialValueText(tr("none"));
    m_prefix->setSuffix(tr(" tokens"));
    m_prefix->setToolTip(tr("A system prompt every session shares: with prefix caching it is stored once per GPU"));
    for (QAbstractSpinBox *b : std::initializer_list<QAbstractSpinBox *>{m_targetSessions, m_maxItl, m_prefix})
        b->setKeyboardTracking(false);
    auto *targets = new QFormLayout;
    targets->addRow(tr("Target sessions per GPU, at least"), m_targetSessions);
    targets->addRow(tr("Target latency per token, at most"), m_maxItl);
    targets->addRow(tr("Shared system prompt"), m_prefix);

    m_table = new QTableWidget(0, 7);
    m_table->setHorizontalHeaderLabels({tr("Lever"), tr("Option"), tr("Sessions/GPU"), tr("Change"), tr("$/session-hour"),
                                        tr("$/M tokens"), tr("Price paid")});
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(6, QHeaderView::Stretch);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_answer = new QLabel;
    m_answer->setWordWrap(true);
    m_answer->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_answer->font();
    bold.setBold(true);
    m_answer->setFont(bold);

    m_failedSessions = new QSpinBox;
    m_failedSessions->setRange(1, 10'000'000);
    m_failedSessions->setValue(12);
    m_failedSessions->setSuffix(tr(" sessions"));
    m_failedTokens = new QSpinBox;
    m_failedTokens->setRange(1, 100'000'000);
    m_failedTokens->setValue(100'000);
    m_failedTokens->setGroupSeparatorShown(true);
    m_failedTokens->setSuffix(tr(" tokens each"));
    auto *diagnoseButton = new QPushButton(tr("&Diagnose"));
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

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(targets);
    layout->addWidget(m_answer);
    layout->addWidget(m_table, 1);
    layout->addWidget(new QLabel(tr("<b>Diagnosis</b>")));
    layout->addLayout(failure);
    layout->addWidget(m_diagnosis);

    for (QDoubleSpinBox *b : {m_targetSessions, m_maxItl})
        connect(b, &QDoubleSpinBox::valueChanged, this, &LeversView::refresh);
    connect(m_prefix, &QSpinBox::valueChanged, this, &LeversView::refresh);
    connect(m_planner, &Planner::resultChanged, this, [this] {
        if (isVisible())
            refresh();
    });
    connect(diagnoseButton, &QPushButton::clicked, this, [this] { diagnose(m_failedSessions->value(), m_failedTokens->value()); });
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
    const LeverReport report = m_planner->levers(target, m_prefix->value(), 256'000'000'000);
    m_table->setRowCount(int(report.options.size()));
    for (int i = 0; i < report.options.size(); ++i) {
        const LeverOption &o = report.options.at(i);
        const QString change = std::isfinite(o.change) ? QStringLiteral("%1%2%").arg(o.change >= 0 ? QStringLiteral("+") : QString())
                                                             .arg(o.change * 100, 0, 'f', 0)
                                                       : tr("from none");
        const QStringList cells = {o.lever, o.option, QString::number(o.sessionsPerGpu, 'f', 2), change,
                                   o.costPerSessionHourUsd && o.sessionsPerGroup > 0 ? Units::formatUsd(*o.costPerSessionHourUsd) : QStringLiteral("—"),
                                   o.costPerMillionTokensUsd ? Units::formatUsd(*o.costPerMillionTokensUsd) : QStringLiteral("—"), o.sideEffect};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells.at(c));
            if (o.cheapest) {
                QFont f = item->font();
                f.setBold(true);
                item->setFont(f);
                item->setBackground(QColor(0xd8, 0xf0, 0xd0));
            } else if (!o.meetsTarget) {
                item->setForeground(Qt::gray);
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
