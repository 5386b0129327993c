// SPDX-License-Identifier: GPL-3.0-or-later
#include "memorychartview.h"
#include "wrappedlabel.h"
#include "chartstyle.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLineSeries>
#include <QLegendMarker>
#include <QStackedBarSeries>
#include <QEvent>
#include <QLabel>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace Headroom {

namespace {
struct Style
{
    const char *label;
    QColor color;
};
// The bands bottom to top, the side pools (issue #14) beside what they share the budget with;
// the host tier is a bar of its own beside the cards.
enum Band { Weights, VisionEncoder, DraftWeights, Lora, Workspace, EncoderCache, HeldBack, KvCache, Indexer, DraftKv, Free, Overflow, HostKv, kBands };
const Style kStyles[kBands] = {
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "Weights"), QColor(0x3b, 0x6e, 0xa8)},
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "Vision encoder"), QColor(0x6f, 0x9f, 0xd8)},
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "Draft weights"), QColor(0x3a, 0x8f, 0x8a)},
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "LoRA slots"), QColor(0xb0, 0x48, 0x7a)},
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "Workspace"), QColor(0x8c, 0x8c, 0x8c)},
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "Encoder cache"), QColor(0x5e, 0x5e, 0x80)},
    // The card less what the engine counts as its own: vLLM's 1 - gpu_memory_utilization, and for
    // every engine that sees the card as torch does the part the driver keeps (the card's
    // torch_memory_bytes below its memory_bytes).
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "Held back (not the engine's)"), QColor(0xc8, 0xc8, 0xc8)},
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "KV cache"), QColor(0xe0, 0x9a, 0x2b)},
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "Indexer cache"), QColor(0xa8, 0x5c, 0x1a)},
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "Draft KV"), QColor(0xf2, 0xc7, 0x7a)},
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "Free"), QColor(0xb9, 0xe0, 0xb0)},
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "Over capacity"), QColor(0xc6, 0x28, 0x28)},
    {QT_TRANSLATE_NOOP("Headroom::MemoryChartView", "Host KV per GPU (warm sessions)"), QColor(0x8e, 0x6c, 0xb8)},
};

/// The bytes per GPU each segment of `r` shows, in stacking order: the demand stacked and
/// clipped at the card, what lies beyond it the overflow. `mean`: the asked sessions at the
/// mean session's bytes, one KV band (MemoryChartView::setResult's atMean). `r` must be ok.
MemoryChartView::Segments segmentsOf(const CapacityResult &r, bool mean)
{
    MemoryChartView::Segments s;
    const qint64 card = r.gpuMemoryBytes;
    qint64 room = card;
    auto take = [&room](qint64 want) {
        const qint64 got = std::clamp<qint64>(want, 0, room);
        room -= got;
        return got;
    };
    s.weights = take(r.weightsBytesPerGpu - r.encoderWeightsBytesPerGpu);
    s.visionEncoder = take(r.encoderWeightsBytesPerGpu);
    s.draftWeights = take(r.draftWeightsBytesPerGpu);
    s.lora = take(r.loraBytesPerGpu);
    s.workspace = take(r.workspaceBytesPerGpu - r.encoderCacheBytesPerGpu);
    s.encoderCache = take(r.encoderCacheBytesPerGpu);
    s.heldBack = take(r.heldBackBytesPerGpu);
    // At the mean, one KV band: the mean session's bytes are not split by pool.
    // Sessions asked beyond one replica size a fleet: a card of it draws its replica's share
    // (at one fixed length its mean is that length: one band too), never all the asked
    // sessions on one card (a trial read "over capacity" beside "deploy the fleet").
    const bool fleet = r.distribution.fleetTargetFromSessions;
    const bool oneBand = mean || fleet;
    const qint64 kv = fleet ? r.distribution.kvBytesForReplicaSessionsAtMeanPerGpu
        : !mean             ? r.kvBytesForSessionsPerGpu
                            : r.distribution.kvBytesForSessionsAtMeanPerGpu;
    s.kvCache = take(oneBand ? kv : kv - r.indexerBytesForSessionsPerGpu - r.draftKvBytesForSessionsPerGpu);
    s.indexer = take(oneBand ? 0 : r.indexerBytesForSessionsPerGpu);
    s.draftKv = take(oneBand ? 0 : r.draftKvBytesForSessionsPerGpu);
    s.free = room;
    // Saturating: a mean past 2^63 bytes is held at INT64_MAX, the demand too.
    const qint64 fixed = r.weightsBytesPerGpu + r.draftWeightsBytesPerGpu + r.loraBytesPerGpu + r.workspaceBytesPerGpu + r.heldBackBytesPerGpu;
    const qint64 demand = kv > std::numeric_limits<qint64>::max() - fixed ? std::numeric_limits<qint64>::max() : fixed + kv;
    s.overflow = std::max<qint64>(0, demand - card);
    // The host tier, per GPU of the node, as a bar of its own.
    if (r.warm.hostKvBytesPerNode > 0 && r.warm.gpusPerNode > 0)
        s.hostKv = r.warm.hostKvBytesPerNode / r.warm.gpusPerNode;
    return s;
}

/// The bytes per GPU of each band of the cards' bars, by Band; the host's bar apart (0 here).
std::array<qint64, kBands> bandBytes(const MemoryChartView::Segments &s)
{
    return {s.weights, s.visionEncoder, s.draftWeights, s.lora, s.workspace, s.encoderCache, s.heldBack, s.kvCache, s.indexer, s.draftKv, s.free, s.overflow, 0};
}
} // namespace

QVector<QPair<QString, QColor>> MemoryChartView::legend(quint32 bands)
{
    QVector<QPair<QString, QColor>> out;
    for (int i = 0; i < kBands; ++i)
        if (bands & (1u << i))
            out << qMakePair(tr(kStyles[i].label), kStyles[i].color);
    return out;
}

MemoryChartView::MemoryChartView(QWidget *parent)
    : QWidget(parent), m_chart(new QChart), m_series(new QStackedBarSeries), m_axisX(new QBarCategoryAxis),
      m_axisY(new QValueAxis)
{
    for (int i = 0; i < kBands; ++i) {
        m_sets[i] = new QBarSet(tr(kStyles[i].label));
        m_sets[i]->setColor(kStyles[i].color);
        m_sets[i]->setBorderColor(kStyles[i].color.darker(130));
        m_series->append(m_sets[i]);
    }
    m_chart->addSeries(m_series);
    m_chart->addAxis(m_axisX, Qt::AlignBottom);
    m_chart->addAxis(m_axisY, Qt::AlignLeft);
    m_series->attachAxis(m_axisX);
    m_series->attachAxis(m_axisY);
    m_capacity = new QLineSeries;
    m_chart->addSeries(m_capacity);
    auto *lineX = new QValueAxis;
    lineX->setRange(0, 1);
    lineX->setVisible(false);
    m_chart->addAxis(lineX, Qt::AlignTop);
    m_capacity->attachAxis(lineX);
    m_capacity->attachAxis(m_axisY);
    m_series->setBarWidth(0.6);
    m_chart->setAnimationOptions(QChart::NoAnimation); // every tick redraws at once
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setTitle(tr("Memory per GPU"));

    m_view = new QChartView(m_chart, this);
    // No antialiasing: every shape is axis-aligned (bars, grid, axes, the card's line) and
    // lands crisp on whole pixels; antialiased, each grid line was blended pixel by pixel on every
    // step of a drag, most of the cost of repainting the chart. Text stays antialiased.
    m_view->setRenderHint(QPainter::Antialiasing, false);
    m_view->setMinimumSize(200, 200); // four of them side by side on Compare at 1280 pixels
    m_view->setAccessibleName(tr("Stacked memory chart"));
    m_view->setFocusPolicy(Qt::NoFocus);
    // Selectable from the first press (a selectable label is laid out and repainted whole every
    // time the answer's layout asks its height: every step of a drag, its text unchanged).
    m_note = new SelectableLabel;
    m_note->setAccessibleName(tr("Card memory"));
    m_note->setVisible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_note);
    restyle();
}

QString MemoryChartView::cardNote(const GpuSpec &gpu, qint64 cardBytes, UnitSystem units)
{
    const UnitSystem other = units == UnitSystem::Binary ? UnitSystem::Decimal : UnitSystem::Binary;
    const QString both = tr("%1 = %2").arg(Units::formatBytes(cardBytes, units), Units::formatBytes(cardBytes, other));
    if (cardBytes != gpu.memoryBytes)
        return tr("Card memory %1, set as a what-if (the %2 preset holds %3).").arg(both, gpu.name, Units::formatBytes(gpu.memoryBytes, units));
    const std::optional<qint64> marketed = gpu.marketedBytes();
    if (!marketed) { // a card of your own: its source as you gave it, if any
        const QString given = gpu.memorySource.isEmpty() ? tr("%1: %2, taken as given.").arg(gpu.name, both)
                                                         : tr("%1: %2, %3.").arg(gpu.name, both, gpu.memorySource.section(QStringLiteral("; "), 0, 0));
        if (cardBytes % Units::GB != 0 || cardBytes > 1'000'000 * Units::GB)
            return given;
        // A whole number of GB reads as the size a card is sold as, which its driver reports
        // about as many GiB of (an "80 GB" H100: 81,559 MiB; an "80 GB" A100: 81,920 MiB).
        const qint64 sold = cardBytes / Units::GB;
        return tr("%1 A card sold as \"%2 GB\" reports about %2 GiB (%3) to its driver: for the exact figure, give the "
                  "total nvidia-smi prints, in MiB.")
            .arg(given, Units::formatCount(sold), Units::formatBytes(sold * Units::GiB, UnitSystem::Decimal));
    }
    const QString sold = Units::formatDecimal(double(*marketed) / double(Units::GB), 1) + tr(" GB");
    if (gpu.memoryIsMarketed())
        return tr("%1: %2, the marketed %3 (no driver total found for this card).").arg(gpu.name, both, sold);
    // The driver's total in MiB when it is a whole number of them, as nvidia-smi prints it.
    const QString mib = cardBytes % Units::MiB == 0 ? tr(" (%1 MiB)").arg(Units::formatCount(cardBytes / Units::MiB)) : QString();
    return tr("%1: %2%3 as the driver reports it; marketed as %4.").arg(gpu.name, both, mib, sold);
}

void MemoryChartView::setCardNote(const QString &note)
{
    if (note == m_note->text())
        return;
    m_note->setText(note);
    m_note->setVisible(!note.isEmpty());
    m_view->setToolTip(note);
}

QString MemoryChartView::cardNoteText() const
{
    return m_note->text();
}

void MemoryChartView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        restyle();
    if (event->type() == QEvent::FontChange)
        applyScale();
}

void MemoryChartView::restyle()
{
    ChartStyle::apply(m_chart, this);
    // The card's capacity in the text colour: dark on light, light on dark.
    QPen pen(palette().color(QPalette::Text));
    pen.setStyle(Qt::DashLine);
    pen.setWidth(2); // whole pixels: the chart is drawn without antialiasing
    m_capacity->setPen(pen);
    // The overflow hatch in the palette's error red, light on a dark base (issue 31: dark red on black).
    const QColor red = ChartStyle::errorColor(this);
    m_sets[Overflow]->setBrush(QBrush(red, Qt::BDiagPattern));
    m_sets[Overflow]->setBorderColor(red);
    QFont bold = font();
    bold.setBold(true);
    m_axisX->setLabelsFont(bold);
}

void MemoryChartView::applyScale()
{
    // The whole stack with room above it, so the card's dashed line never sits on the frame
    // (an 80 GB H100, 85.5 GB or 79.6 GiB, reads 0 to 90 by 10 on a tall chart), and no more
    // steps than three lines of text each: a short chart (Compare) gets fewer, never colliding labels.
    const int steps = std::clamp(int(height() / (3.0 * fontMetrics().height())), 3, 10);
    ChartStyle::niceRange(m_axisY, m_axisTop * 1.04, steps);
}

void MemoryChartView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    applyScale();
}

void MemoryChartView::setLegendVisible(bool visible)
{
    m_chart->legend()->setVisible(visible);
}

void MemoryChartView::setScaleTop(qint64 bytes)
{
    m_scaleTop = bytes;
    setResult(m_result, m_gpus, m_units, m_atMean);
}

QString MemoryChartView::sessionsAtMean(qint64 sessions, const Scenario &s, const DistributionFigures &d)
{
    return (s.retainTokens ? tr("%1 × %2 tokens (the capped mean)") : tr("%1 × %2 tokens (the mean)"))
        .arg(Units::plural(sessions, tr("session"), tr("sessions")), Units::formatCount(d.meanHeldTokens(s.retainTokens.has_value())));
}

void MemoryChartView::setResult(const CapacityResult &r, int gpus, UnitSystem units, const QString &atMean)
{
    m_result = r;
    m_atMean = atMean;
    m_gpus = gpus;
    m_units = units;
    m_segments = r.ok ? segmentsOf(r, !atMean.isEmpty()) : Segments();
    const qint64 giga = Units::gigaBytes(units);
    const int bars = std::clamp(gpus, 1, 8);
    showBars(bars, giga);
    showCapacity(r, bars, giga);
    const int shown = showLegendEntries();
    showTitles(r, units, atMean);
    m_legendEntries = shown;
    ChartStyle::fitLegend(m_chart); // the entries shown change with the segments
}

void MemoryChartView::showBars(int bars, qint64 giga)
{
    const Segments &s = m_segments;
    const std::array<qint64, kBands> values = bandBytes(s);
    const bool host = s.hostKv > 0;
    // Values changed in place while the bars stay the same (a drag): removing and appending them
    // makes Qt Charts delete and recreate every bar item and lay the chart out again.
    const int count = bars + (host ? 1 : 0);
    for (int i = 0; i < kBands; ++i) {
        QBarSet *set = m_sets[i];
        if (set->count() != count) {
            set->remove(0, set->count());
            for (int g = 0; g < count; ++g)
                set->append(0.0);
        }
        for (int g = 0; g < count; ++g) {
            const double value = g < bars ? double(values[i]) / double(giga) : i == HostKv ? double(s.hostKv) / double(giga) : 0.0;
            if (set->at(g) != value)
                set->replace(g, value);
        }
    }
    QStringList categories;
    for (int g = 0; g < bars; ++g)
        categories << (bars == 1 ? tr("GPU") : tr("GPU %1").arg(g + 1));
    if (host)
        categories << tr("Host");
    if (m_axisX->categories() != categories)
        m_axisX->setCategories(categories);
}

void MemoryChartView::showCapacity(const CapacityResult &r, int bars, qint64 giga)
{
    const Segments &s = m_segments;
    // A plan with no answer keeps the scale it had (one unit when it never had one), not an axis
    // of a billionth of a GB.
    const double top = m_scaleTop > 0 ? double(m_scaleTop) / double(giga)
        : r.ok                        ? double(std::max(r.gpuMemoryBytes + s.overflow, s.hostKv)) / double(giga)
        : m_axisTop > 0               ? m_axisTop
                                      : 1.0;
    // The card's capacity as a dashed line across the cards' bars (not the host's).
    const double cap = double(r.ok ? r.gpuMemoryBytes : 0) / double(giga);
    // Set only when they change, as the bars are: each set lays the chart out again on a drag.
    const QList<QPointF> line{QPointF(0, cap), QPointF(s.hostKv > 0 ? double(bars) / double(bars + 1) : 1.0, cap)};
    if (m_capacity->points() != line)
        m_capacity->replace(line);
    m_capacity->setName(tr("Card capacity")); // its figure is in the axis title: a short entry keeps the legend in one row
    m_axisTop = top;
    applyScale();
}

int MemoryChartView::showLegendEntries()
{
    const std::array<qint64, kBands> values = bandBytes(m_segments);
    const bool host = m_segments.hostKv > 0;
    // Legend entries for segments that are empty here (no utilization rule, no overflow) only distract.
    const QList<QLegendMarker *> markers = m_chart->legend()->markers(m_series);
    int shown = 0;
    m_drawn = 0;
    for (int i = 0; i < kBands; ++i)
        if (values[i] > 0 || (i == HostKv && host))
            m_drawn |= 1u << i;
    bool toggled = false;
    for (int i = 0; i < markers.size() && i < kBands; ++i) {
        const bool on = i == Weights || i == Workspace || i == KvCache || i == Free || values[i] > 0 || (i == HostKv && host);
        toggled = toggled || markers.at(i)->isVisible() != on;
        ChartStyle::setEntryVisible(markers.at(i), on);
        shown += on ? 1 : 0;
    }
    // An entry shown again along a drag (Over capacity) is placed only when the legend lays out
    // again: without this its marker stayed at the legend's corner over "Weights", unlabelled.
    if (toggled && m_chart->legend()->layout())
        m_chart->legend()->layout()->invalidate();
    return shown;
}

void MemoryChartView::showTitles(const CapacityResult &r, UnitSystem units, const QString &atMean)
{
    const Segments &s = m_segments;
    const QString axisTitle = r.ok ? tr("%1 (card: %2)").arg(Units::gigaLabel(units), Units::formatBytes(r.gpuMemoryBytes, units))
                                   : Units::gigaLabel(units);
    if (m_axisY->titleText() != axisTitle)
        m_axisY->setTitleText(axisTitle);
    const QString title = !atMean.isEmpty() ? (s.overflow == 0 ? tr("Memory per GPU: %1").arg(atMean)
                                                               : tr("Memory per GPU: %1, over by %2").arg(atMean, Units::formatBytes(s.overflow, units)))
        : s.overflow == 0 ? tr("Memory per GPU")
                          : tr("Memory per GPU: over capacity by %1").arg(Units::formatBytes(s.overflow, units));
    if (m_chart->property("headroomTitle").toString() != title) {
        m_chart->setTitle(title);
        ChartStyle::fitTitle(m_chart); // broken onto two lines rather than elided where the figure sits
    }
}

qint64 MemoryChartView::stackedBytes() const
{
    const Segments &s = m_segments;
    return s.weights + s.workspace + s.heldBack + s.kvCache + s.indexer + s.free + s.overflow;
}

} // namespace Headroom
