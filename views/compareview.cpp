// SPDX-License-Identifier: GPL-3.0-or-later
#include "compareview.h"

#include "memorychartview.h"
#include "pickerlabels.h"
#include "chartstyle.h"
#include "plan/capacity.h"

#include <QChart>
#include <QCheckBox>
#include <QEvent>
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
    m_pin = new QPushButton(tr("Pin c&urrent for comparison"));
    m_pin->setToolTip(tr("Keep this scenario as a column, then change one input (Ctrl+D)"));
    m_unpin = new QPushButton(tr("&Remove last pinned"));
    m_showAll = new QCheckBox(tr("Show a&ll inputs"));
    m_showAll->setToolTip(tr("Off: only the inputs that differ between the columns, then the answer"));
    connect(m_showAll, &QCheckBox::toggled, this, &CompareView::refresh);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_pin);
    buttons->addWidget(m_unpin);
    buttons->addStretch();
    buttons->addWidget(m_showAll);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setTabKeyNavigation(false); // read-only: Tab leaves the table, the arrows walk its cells
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents); // compact rows: more of them show
    m_legend = new QLabel;
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_legend);
    layout->addLayout(m_charts, 1);
    connect(m_pin, &QPushButton::clicked, m_planner, &Planner::pinCurrent);
    connect(m_unpin, &QPushButton::clicked, this, [this] { m_planner->unpin(int(m_planner->pinned().size()) - 1); });
    connect(m_planner, &Planner::pinnedChanged, this, &CompareView::refresh);
    connect(m_planner, &Planner::resultChanged, this, [this] {
        if (isVisible())
            refresh();
        else
            m_stale = true;
    });
    connect(m_planner, &Planner::unitsChanged, this, &CompareView::refresh);
    refresh();
}

void CompareView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        refresh(); // the highlight follows the palette
}

QTableWidget *CompareView::table()
{
    if (m_stale)
        refresh();
    return m_table;
}

void CompareView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

/// A row of the table: its label and how a column's scenario and result read in it.
struct CompareView::Row
{
    QString label;
    std::function<QString(const Scenario &, const CapacityResult &)> cell;
};

QVector<CompareView::Row> CompareView::inputRows(UnitSystem u)
{
    return {
        {tr("Model"), [](const Scenario &s, const CapacityResult &) -> QString { return s.model.name; }},
        {tr("GPU"), [](const Scenario &s, const CapacityResult &) -> QString { return s.gpu.name; }},
        {tr("TP"), [](const Scenario &s, const CapacityResult &) -> QString { return QString::number(s.tp); }},
        {tr("Engine rule"), [](const Scenario &s, const CapacityResult &) -> QString { return engineLabel(s.engine); }},
        {tr("KV heads"),
         [](const Scenario &s, const CapacityResult &) -> QString {
             return s.kvHeadsOverride ? tr("%1 (what-if; published %2)").arg(*s.kvHeadsOverride).arg(s.model.kvHeads)
                                      : QString::number(s.effectiveKvHeads());
         }},
        {tr("Context"),
         [](const Scenario &s, const CapacityResult &r) -> QString {
             // Past the maximum the plan checks it against (CapacityResult::contextBeyondMax), as the report's sensitivity rows say.
             const QString past = !r.contextBeyondMax ? QString()
                 : s.maxModelLen ? tr(", past --max-model-len %1").arg(Units::formatCount(s.effectiveMaxModelLen()))
                                 : tr(", past the model's %1-token maximum").arg(Units::formatCount(s.effectiveMaxModelLen()));
             return tr("%1 tokens%2").arg(Units::formatCount(s.contextTokens), past);
         }},
        {tr("Sessions asked"), [](const Scenario &s, const CapacityResult &) -> QString { return Units::formatCount(s.sessions); }},
        {tr("Lengths from"),
         [](const Scenario &s, const CapacityResult &) -> QString {
             if (!s.distribution)
                 return tr("the context");
             switch (s.distribution->kind) {
             case LengthDistribution::Kind::Trace: return tr("trace");
             case LengthDistribution::Kind::LogNormal: return tr("log-normal");
             case LengthDistribution::Kind::Quantiles: return tr("quantile table");
             case LengthDistribution::Kind::Fixed: return tr("fixed");
             }
             return QString();
         }},
        {tr("Length scale"), [](const Scenario &s, const CapacityResult &) -> QString { return QStringLiteral("× %1").arg(Units::formatDecimal(s.lengthScale)); }},
        {tr("Risk"), [](const Scenario &s, const CapacityResult &) -> QString { return !s.distribution ? tr("— (no distribution)") : s.fleetRisk ? tr("%1 for the fleet").arg(Units::formatRisk(*s.fleetRisk)) : Units::formatRisk(s.risk); }},
        {tr("KV / weight precision"),
         [](const Scenario &, const CapacityResult &r) -> QString { return Dtypes::name(r.kvDtype) + QStringLiteral(" / ") + Dtypes::name(r.weightsDtype); }},
        {tr("Session lengths"),
         [](const Scenario &s, const CapacityResult &r) -> QString {
             return s.distribution ? s.distribution->spec : tr("%1 tokens").arg(Units::formatCount(r.reservedTokensPerSession));
         }},
        {tr("Per session at"),
         [](const Scenario &s, const CapacityResult &r) -> QString { return sessionBasis(s, r); }},
        {tr("GPU price"),
         [](const Scenario &s, const CapacityResult &) -> QString {
             return s.effectivePrice() ? Units::formatUsdPer(*s.effectivePrice(), tr("GPU-hour")) : tr("none");
         }},
        {tr("Retention cap"),
         [](const Scenario &s, const CapacityResult &) -> QString { return s.retainTokens ? tr("%1 tokens").arg(Units::formatCount(*s.retainTokens)) : tr("none"); }},
        {tr("GPU memory"), [u](const Scenario &s, const CapacityResult &) -> QString { return Units::formatBytes(s.effectiveGpuMemoryBytes(), u); }},
        {tr("Max model length"),
         [](const Scenario &s, const CapacityResult &) -> QString { return s.maxModelLen ? tr("%1 tokens").arg(Units::formatCount(*s.maxModelLen)) : tr("the model's"); }},
        {tr("GPU memory utilization"),
         [](const Scenario &s, const CapacityResult &) -> QString { return s.engine == Engine::Vllm ? Units::formatDecimal(s.gpuMemoryUtilization) : tr("— (vLLM rule only)"); }},
        {tr("Admission margin"),
         [](const Scenario &s, const CapacityResult &) -> QString { return tr("%1% of the KV budget").arg(Units::formatDecimal(s.marginFraction * 100)); }},
    };
}

QVector<CompareView::Row> CompareView::answerRows(UnitSystem u)
{
    return {
        {tr("KV bytes per token"), [](const Scenario &, const CapacityResult &r) -> QString { return Units::formatExactBytes(r.kvBytesPerToken); }},
        {tr("KV budget per GPU"), [u](const Scenario &, const CapacityResult &r) -> QString { return Units::formatBytes(r.kvBudgetBytesPerGpu, u); }},
        // The whole count a replica holds with its GPUs ("15 per 4 GPUs"): never a quotient per GPU.
        // Named for what it is at any TP (a trial read "Sessions per TP group: 3 per GPU").
        {tr("Sessions that fit"),
         [](const Scenario &s, const CapacityResult &r) -> QString { return sessionsPerGpus(r.distribution.sessionsAtRisk, s.gpusPerReplica(), false); }},
        {tr("Cost per session-hour"),
         [](const Scenario &, const CapacityResult &r) -> QString {
             return r.costPerSessionHourUsd ? Units::formatUsdPer(*r.costPerSessionHourUsd, tr("session-hour")) : QStringLiteral("—");
         }},
        {tr("Cost per million output tokens"),
         [](const Scenario &, const CapacityResult &r) -> QString {
             return r.distribution.costPerMillionTokensUsd ? Units::formatUsd(*r.distribution.costPerMillionTokensUsd) : QStringLiteral("—");
         }},
    };
}

void CompareView::refresh()
{
    m_stale = false;
    QVector<Planner::Pinned> columns = m_planner->pinned();
    columns.append(Planner::Pinned{tr("Current"), m_planner->scenario(), m_planner->result()});
    const UnitSystem u = m_planner->units();
    // Inputs first (shown only where a column differs, unless "show all" is on), then the answer (always shown).
    const QVector<Row> inputs = inputRows(u);
    fillTable(columns, inputs, answerRows(u));
    showCharts(columns, u);
    m_pin->setEnabled(m_planner->pinned().size() < 3);
    m_unpin->setEnabled(!m_planner->pinned().isEmpty());
}

void CompareView::fillTable(const QVector<Planner::Pinned> &columns, const QVector<Row> &inputs, const QVector<Row> &answers)
{
    const QPalette pal = palette();
    const QColor differs = ChartStyle::blend(pal.color(QPalette::Base), QColor(0xe0, 0x9a, 0x2b), 0.35);
    QVector<Row> rows = inputs;
    rows += answers;
    m_table->clear();
    m_table->setRowCount(int(rows.size()));
    m_table->setColumnCount(int(columns.size()));
    QStringList headers, labels;
    for (const auto &c : columns)
        headers << c.name;
    for (const auto &r : rows)
        labels << r.label;
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setVerticalHeaderLabels(labels);
    int same = 0;
    for (int row = 0; row < rows.size(); ++row) {
        const QString first = columns.first().result.ok ? rows.at(row).cell(columns.first().scenario, columns.first().result) : QString();
        bool rowDiffers = false;
        for (int col = 0; col < columns.size(); ++col) {
            const Planner::Pinned &c = columns.at(col);
            const QString text = c.result.ok ? rows.at(row).cell(c.scenario, c.result) : c.result.error;
            auto *item = new QTableWidgetItem(text);
            if (col > 0 && text != first) {
                // Differs from the first column: highlighted.
                rowDiffers = true;
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                item->setBackground(differs);
                item->setForeground(pal.color(QPalette::Text));
            }
            m_table->setItem(row, col, item);
        }
        // With one column there is nothing to compare: every input shows.
        const bool hide = row < inputs.size() && !rowDiffers && columns.size() > 1 && !m_showAll->isChecked();
        m_table->setRowHidden(row, hide);
        if (row < inputs.size() && !rowDiffers)
            ++same;
    }
    m_showAll->setText(columns.size() > 1 ? tr("Show a&ll inputs (%1 the same in every column)").arg(same) : tr("Show a&ll inputs"));
    m_showAll->setEnabled(columns.size() > 1);
}

void CompareView::showCharts(const QVector<Planner::Pinned> &columns, UnitSystem u)
{
    // Charts on one shared scale.
    while (m_chartViews.size() > columns.size())
        delete m_chartViews.takeLast();
    while (m_chartViews.size() < columns.size()) {
        auto *chart = new MemoryChartView;
        chart->setLegendVisible(false); // one legend above serves every chart
        m_charts->addWidget(chart);
        m_chartViews << chart;
    }
    // The shared scale covers the tallest stack shown (the card plus any overflow).
    qint64 top = 0;
    for (int i = 0; i < columns.size(); ++i) {
        m_chartViews.at(i)->setScaleTop(0);
        m_chartViews.at(i)->setResult(columns.at(i).result, 1, u);
        top = std::max(top, m_chartViews.at(i)->stackedBytes());
    }
    for (int i = 0; i < columns.size(); ++i) {
        m_chartViews.at(i)->setScaleTop(top);
        m_chartViews.at(i)->chart()->setTitle(columns.at(i).name);
    }
    // The legend names only the bands some chart draws (no "LoRA slots" where no column has any).
    quint32 drawn = 0;
    for (const MemoryChartView *chart : m_chartViews)
        drawn |= chart->drawnBands();
    QStringList legend;
    for (const auto &[name, colour] : MemoryChartView::legend(drawn))
        legend << QStringLiteral("<span style='color:%1'>■</span> %2").arg(colour.name(), name.toHtmlEscaped());
    m_legend->setText(legend.join(QStringLiteral(" &nbsp; ")) + tr(" &nbsp; ┅ card capacity"));
}

} // namespace Headroom
