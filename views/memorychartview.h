// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "kv/gpuspec.h"
#include "inputs/scenario.h"
#include "plan/capacityresult.h"
#include "core/units.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QChart;
class QLabel;
class QChartView;
class QStackedBarSeries;
class QBarSet;
class QBarCategoryAxis;
class QValueAxis;
class QLineSeries;
QT_END_NAMESPACE

namespace Headroom {

/// The stacked memory chart of the GPUs in one TP group: weights, workspace,
/// memory held back by gpu_memory_utilization, KV cache for the chosen
/// sessions, the sparse-attention indexer's cache, the side pools (a draft's
/// weights and KV, LoRA slots, a vision encoder's weights and encoder cache),
/// free memory, a host-memory bar for warm sessions, and (when the plan does not fit) the overflow above
/// the card's capacity. Renders a CapacityResult it is given; computes
/// nothing. Qt Charts stays behind this class (it is deprecated from Qt 6.10).
class MemoryChartView : public QWidget
{
    Q_OBJECT
public:
    /// The bytes each segment shows for one GPU, in stacking order.
    struct Segments
    {
        qint64 weights = 0;    ///< the model's weights, the vision encoder's apart
        qint64 visionEncoder = 0; ///< a vision encoder's weights (issue 14)
        qint64 draftWeights = 0; ///< a speculative-decoding draft's weights (side pool, issue #14)
        qint64 lora = 0;         ///< LoRA adapter slots (side pool)
        qint64 workspace = 0;  ///< the encoder cache apart
        qint64 encoderCache = 0; ///< the engine's encoder cache of image embeddings
        qint64 heldBack = 0;   ///< card - usable (vLLM's gpu_memory_utilization)
        qint64 kvCache = 0;    ///< KV for the chosen sessions, within the card (the indexer's part apart)
        qint64 indexer = 0;    ///< the sparse-attention indexer's keys for those sessions (DeepSeek-V3.2)
        qint64 draftKv = 0;    ///< the draft's own KV for those sessions (apart from kvCache)
        qint64 free = 0;
        qint64 overflow = 0;   ///< demand beyond the card
        qint64 hostKv = 0;     ///< host memory for warm sessions per GPU of the node (a bar beside the cards)
    };

    explicit MemoryChartView(QWidget *parent = nullptr);

    /// The names and colours of the segments in `bands` (a drawnBands() mask, or several
    /// OR'ed together), in stacking order, for a legend shared by several charts; every band by default.
    static QVector<QPair<QString, QColor>> legend(quint32 bands = ~0u);
    /// The bands the last result draws (more than 0 bytes), one bit each in stacking order: a
    /// shared legend lists only these.
    quint32 drawnBands() const { return m_drawn; }

    /// Shows `result` for `gpus` cards in `units`. `atMean`, when not empty, draws the asked
    /// sessions at the mean session's bytes (DistributionFigures::kvBytesForSessionsAtMeanPerGpu,
    /// one KV band) and names them in the title ("400 sessions × 1,366 tokens (the mean)"):
    /// against a distribution every session at the context is a worst case no session may
    /// reach (answersByRisk), not what the plan's answer holds.
    void setResult(const CapacityResult &result, int gpus, UnitSystem units, const QString &atMean = QString());
    /// `sessions` at the mean length the scenario holds, for setResult's atMean and the report's
    /// title: "400 sessions × 1,366 tokens (the mean)", "(the capped mean)" under a retention cap.
    static QString sessionsAtMean(qint64 sessions, const Scenario &scenario, const DistributionFigures &figures);
    /// Shows or hides the legend (small side-by-side charts share one colour key).
    void setLegendVisible(bool visible);
    /// Fixes the value axis top at `bytes` (comparisons share one scale); 0 = automatic.
    void setScaleTop(qint64 bytes);
    /// What the chart shows now, in bytes per GPU.
    const Segments &segments() const { return m_segments; }
    /// The height of the stack shown, bytes per GPU: the card, plus the overflow above it.
    qint64 stackedBytes() const;
    /// How many entries the legend lists for the last result (the bands shown, the host bar):
    /// a report gives a chart with many entries more height, so no entry is cut.
    int legendEntries() const { return m_legendEntries; }
    /// What the card's memory figure is, in one sentence, for a card of `cardBytes` (the
    /// memory the plan uses) from preset `gpu`: the figure in `units` and the other unit, and
    /// whether it is the total the driver reports (81,559 MiB on an H100 "80GB": 85.5 GB =
    /// 79.6 GiB) or the marketed size (no driver total cited), with the marketed size beside
    /// it; a card memory set as a what-if says so. A card of your own is taken as given, and one
    /// of a whole number of GB (a size as cards are sold) is told that its driver reports about as
    /// many GiB. GB = 10^9 B, GiB = 2^30 B.
    static QString cardNote(const GpuSpec &gpu, qint64 cardBytes, UnitSystem units);
    /// Shows `note` (cardNote) as a caption under the chart and as the chart's tooltip;
    /// empty hides it (the Compare tab's small charts show none).
    void setCardNote(const QString &note);
    /// The caption shown under the chart (empty: none).
    QString cardNoteText() const;
    /// The chart, for painting into a report.
    QChart *chart() const { return m_chart; }

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void restyle();
    /// The value axis from 0 past m_axisTop, with as many round steps as the chart's height allows.
    void applyScale();
    /// m_segments as `bars` cards' bars (and the host's, when it holds any) in units of `giga`
    /// bytes, each value set only when it changes; the category names under them.
    void showBars(int bars, qint64 giga);
    /// The scale's top (setScaleTop's, else the card and its overflow, else the one kept) and
    /// the card's capacity of `r` as a dashed line across the `bars` cards, in units of `giga` bytes.
    void showCapacity(const CapacityResult &r, int bars, qint64 giga);
    /// The legend lists the bands m_segments draws (and always the main four); sets m_drawn.
    /// Returns how many entries it lists.
    int showLegendEntries();
    /// The value axis's title (the card's memory of `r` in `units`) and the chart's (what the
    /// stack shows: `atMean`, an overflow).
    void showTitles(const CapacityResult &r, UnitSystem units, const QString &atMean);

    QChart *m_chart;
    QChartView *m_view;
    QStackedBarSeries *m_series;
    QBarCategoryAxis *m_axisX;
    QValueAxis *m_axisY;
    QLineSeries *m_capacity;
    QLabel *m_note; ///< the card's memory in words (setCardNote), hidden when empty
    QBarSet *m_sets[13]; ///< one per band (memorychartview.cpp, enum Band)
    Segments m_segments;
    qint64 m_scaleTop = 0;
    double m_axisTop = 1; ///< the stack's top in the display unit
    int m_legendEntries = 0; ///< bands shown by the last setResult
    quint32 m_drawn = 0;     ///< bands with bytes in the last setResult (drawnBands)
    CapacityResult m_result;
    QString m_atMean; ///< setResult's atMean
    int m_gpus = 1;
    UnitSystem m_units = UnitSystem::Decimal;
};

} // namespace Headroom
