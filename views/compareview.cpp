// SPDX-License-Identifier: GPL-3.0-or-later
#include "compareview.h"

#include "memorychartview.h"
#include "planner.h"

#include <QChart>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <functional>

namespace Headroom {

CompareView::CompareView(Planner *planner, QWidget *parent)
    : QWidget(parent), m_planner(planner), m_table(new QTableWidget), m_charts(new QHBoxLayout)
{
    m_pin = new QPushButton(tr("&Pin current for comparison"));
    m_pin->setToolTip(tr("Keep this scenario as a column, then change one input (Ctrl+D)"));
    m_unpin = new QPushButton(tr("&Remove last pinned"));
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_pin);
    buttons->addWidget(m_unpin);
    buttons->addStretch();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 1);
    layout->addLayout(m_charts, 1);
    connect(m_pin, &QPushButton::clicked, m_planner, &Planner::pinCurrent);
    connect(m_unpin, &QPushButton::clicked, this, [this] { m_planner->unpin(int(m_planner->pinned().size()) - 1); });
    connect(m_planner, &Planner::pinnedChanged, this, &CompareView::refresh);
    connect(m_planner, &Planner::resultChanged, this, &CompareView::refresh);
    connect(m_planner, &Planner::unitsChanged, this, &CompareView::refresh);
    refresh();
}

void CompareView::refresh()
{
    QVector<Planner::Pinned> columns = m_planner->pinned();
    columns.append(Planner::Pinned{tr("Current"), m_planner->scenario(), m_planner->result()});
    const UnitSystem u = m_planner->units();
    auto fmt = [u](qint64 b) { return Units::formatBytes(b, u); };
    using Cell = std::function<QString(const Scenario &, const CapacityResult &)>;
    const QVector<QPair<QString, Cell>> rows = {
        {tr("Model"), [](const Scenario &s, const CapacityResult &) -> QString { return s.model.name; }},
        {tr("GPU"), [](const Scenario &s, const CapacityResult &) -> QString { return s.gpu.name; }},
        {tr("TP"), [](const Scenario &s, const CapacityResult &) -> QString { return QString::number(s.tp); }},
        {tr("Engine rule"), [](const Scenario &s, const CapacityResult &) -> QString { return Engines::name(s.engine); }},
        {tr("KV / weight precision"),
         [](const Scenario &, const CapacityResult &r) -> QString { return Dtypes::name(r.kvDtype) + QStringLiteral(" / ") + Dtypes::name(r.weightsDtype); }},
        {tr("Session lengths"),
         [](const Scenario &s, const CapacityResult &r) -> QString {
             return s.distribution ? s.distribution->spec : tr("%1 tokens").arg(Units::formatCount(r.reservedTokensPerSession));
         }},
        {tr("Retention cap"),
         [](const Scenario &s, const CapacityResult &) -> QString { return s.retainTokens ? Units::formatCount(*s.retainTokens) : tr("none"); }},
        {tr("KV bytes per token"), [](const Scenario &, const CapacityResult &r) -> QString { return Units::formatExactBytes(r.kvBytesPerToken); }},
        {tr("KV budget per GPU"), [fmt](const Scenario &, const CapacityResult &r) -> QString { return fmt(r.kvBudgetBytesPerGpu); }},
        {tr("Sessions per TP group"), [](const Scenario &, const CapacityResult &r) -> QString { return Units::formatCount(r.distribution.sessionsAtRisk); }},
        {tr("Sessions per GPU"),
         [](const Scenario &s, const CapacityResult &r) -> QString { return QString::number(double(r.distribution.sessionsAtRisk) / s.tp, 'f', 2); }},
        {tr("Cost per session-hour"),
         [](const Scenario &, const CapacityResult &r) -> QString {
             return r.costPerSessionHourUsd ? Units::formatUsd(*r.costPerSessionHourUsd) : QStringLiteral("—");
         }},
        {tr("Cost per million tokens"),
         [](const Scenario &, const CapacityResult &r) -> QString {
             return r.distribution.costPerMillionTokensUsd ? Units::formatUsd(*r.distribution.costPerMillionTokensUsd) : QStringLiteral("—");
         }},
    };
    m_table->clear();
    m_table->setRowCount(int(rows.size()));
    m_table->setColumnCount(int(columns.size()));
    QStringList headers, labels;
    for (const auto &c : columns)
        headers << c.name;
    for (const auto &r : rows)
        labels << r.first;
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setVerticalHeaderLabels(labels);
    for (int row = 0; row < rows.size(); ++row) {
        const QString first = columns.first().result.ok ? rows.at(row).second(columns.first().scenario, columns.first().result) : QString();
        for (int col = 0; col < columns.size(); ++col) {
            const Planner::Pinned &c = columns.at(col);
            const QString text = c.result.ok ? rows.at(row).second(c.scenario, c.result) : c.result.error;
            auto *item = new QTableWidgetItem(text);
            if (col > 0 && text != first) {
                // Differs from the first column: highlighted.
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                item->setBackground(QColor(0xff, 0xf2, 0xcc));
            }
            m_table->setItem(row, col, item);
        }
    }
    // Charts on one shared scale.
    while (m_chartViews.size() > columns.size())
        delete m_chartViews.takeLast();
    while (m_chartViews.size() < columns.size()) {
        auto *chart = new MemoryChartView;
        chart->setLegendVisible(false); // the colours are those of the memory chart
        m_charts->addWidget(chart);
        m_chartViews << chart;
    }
    qint64 top = 0;
    for (const auto &c : columns)
        if (c.result.ok)
            top = std::max(top, c.result.gpuMemoryBytes + c.result.overflowBytesPerGpu);
    for (int i = 0; i < columns.size(); ++i) {
        m_chartViews.at(i)->setResult(columns.at(i).result, 1, u);
        m_chartViews.at(i)->setScaleTop(top);
        m_chartViews.at(i)->chart()->setTitle(columns.at(i).name);
    }
    m_pin->setEnabled(m_planner->pinned().size() < 3);
    m_unpin->setEnabled(!m_planner->pinned().isEmpty());
}

} // namespace Headroom
