// SPDX-License-Identifier: GPL-3.0-or-later
#include "reportwriter.h"
#include "chartstyle.h"

#include "core/inputerror.h"
#include "plan/capacity.h"
#include "plan/levers.h"
#include "io/sampletraces.h"
#include "store/presetstore.h"
#include "distributionchartview.h"
#include "memorychartview.h"
#include "throughputchartview.h"

#include <QAbstractTextDocumentLayout>
#include <QChart>
#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QJsonObject>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QPalette>
#include <QPdfWriter>
#include <QPrinter>
#include <QLocale>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTextDocument>
#include <QValueAxis>
#include <algorithm>
#include <functional>
#include <cmath>
#include <limits>

namespace Headroom {

namespace {

// Every report's page: its size, 18 mm margins; with kDotsPerInch, the one layout of the PDF
// and of the print preview (ReportWriter::setUpPrinter).
constexpr int kDotsPerInch = 144;
void setUpPage(QPagedPaintDevice &device, QPageSize::PageSizeId size)
{
    device.setPageSize(QPageSize(size));
    device.setPageMargins(QMarginsF(18, 18, 18, 18), QPageLayout::Millimeter);
}

QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}

QString row(const QString &a, const QString &b)
{
    return QStringLiteral("<tr><td>%1</td><td>%2</td></tr>").arg(a, b);
}

// One page: an HTML block on top and charts stacked below it.
struct Page
{
    QString html;
    QVector<QChart *> charts;  // owned by the chart holders in paint()
    double chartShare = 0.45;  // of the page body height
};

// Paints `chart` into `target` as vector graphics. The chart is laid out at
// screen scale (96 dpi) and scaled to the device, so its fonts keep their
// proportions on a 144 dpi page.
void renderChart(QPainter &p, QChart *chart, const QRectF &target, double deviceDpi)
{
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setDropShadowEnabled(false);
    chart->setBackgroundRoundness(0);
    chart->setGeometry(QRectF(QPointF(0, 0), target.size() * (96.0 / deviceDpi)));
    QGraphicsScene *scene = chart->scene();
    std::unique_ptr<QGraphicsScene> own;
    if (!scene) {
        own = std::make_unique<QGraphicsScene>();
        own->addItem(chart);
        scene = own.get();
    }
    scene->render(&p, target, chart->sceneBoundingRect());
    if (own)
        own->removeItem(chart);
}

// Paper is white whatever the desktop's theme: the report's text and charts are
// drawn in this light palette, never the window's (a dark desktop printed white
// headings on a white page and charts on black).
QPalette paperPalette()
{
    const QColor black(Qt::black), white(Qt::white);
    QPalette p(black, QColor(0xef, 0xef, 0xef), white, QColor(0x9f, 0x9f, 0x9f), QColor(0xb8, 0xb8, 0xb8), black, white, white, white);
    p.setColor(QPalette::AlternateBase, QColor(0xf5, 0xf5, 0xf5));
    p.setColor(QPalette::ToolTipBase, white);
    p.setColor(QPalette::ToolTipText, black);
    p.setColor(QPalette::PlaceholderText, QColor(0x70, 0x70, 0x70));
    p.setColor(QPalette::Highlight, QColor(0x30, 0x8c, 0xc6));
    p.setColor(QPalette::HighlightedText, white);
    p.setColor(QPalette::Link, QColor(0x00, 0x00, 0xee));
    return p;
}

// The sessions-against-context chart, dressed as the report's other charts are
// (ChartStyle::apply with `look`, a chart view already given the paper palette).
QChart *sessionsChart(const Scenario &s, const QWidget *look)
{
    auto *chart = new QChart;
    auto *series = new QLineSeries;
    series->setName(QCoreApplication::translate("ReportWriter", "sessions that fit per TP group"));
    qint64 top = 1;
    double first = 1, last = 10;
    const auto points = sessionsAcrossContexts(s);
    for (const auto &[context, sessions] : points) {
        series->append(double(context), double(sessions));
        top = std::max(top, sessions);
    }
    if (!points.isEmpty())
        first = double(points.first().first), last = double(points.last().first);
    chart->addSeries(series);
    auto *x = new QLogValueAxis;
    x->setBase(10);
    x->setLabelFormat(QStringLiteral("%.0f"));
    x->setTitleText(QCoreApplication::translate("ReportWriter", "context length, tokens (log scale)"));
    ChartStyle::logRange(x, first, last);
    auto *y = new QValueAxis;
    y->setRange(0, double(top) * 1.1);
    y->applyNiceNumbers();
    y->setLabelFormat(QStringLiteral("%.0f"));
    y->setTitleText(QCoreApplication::translate("ReportWriter", "sessions"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    chart->setTitle(QCoreApplication::translate("ReportWriter", "Sessions against context length"));
    ChartStyle::apply(chart, look);
    return chart;
}


QString tr(const char *t)
{
    return QCoreApplication::translate("ReportWriter", t);
}

// The basis every per-session figure of a scenario stands on, in words; a
// risk in the one form the window and the command line write
// (Units::formatRisk: "1 in 1,000,000 (1e-6)", from 0.1 up a percentage).
QString basisOf(const Scenario &s)
{
    const QString risk = Units::formatRisk(s.risk);
    if (s.distribution)
        return s.retainTokens ? tr("against the trace capped at %1 tokens, at a %2 risk").arg(Units::formatCount(*s.retainTokens), risk)
                              : tr("against the trace at a %1 risk").arg(risk);
    if (s.retainTokens && *s.retainTokens < s.contextTokens)
        return tr("at the cap of %1 tokens").arg(Units::formatCount(*s.retainTokens));
    return tr("at the context of %1 tokens").arg(Units::formatCount(s.contextTokens));
}

// The deployment the report recommends: the target sessions on whole TP
// groups (the model's gpusNeeded), else one TP group; money at the price in
// force for 730 hours a month.
struct Deployment
{
    qint64 perGroup = 0;   // sessions per TP group on the scenario's basis
    qint64 sessions = 0;   // sessions the deployment serves
    qint64 gpus = 0;
    qint64 groups = 0;
    std::optional<double> perHour, perMonth, perSessionHour;
};

Deployment deploymentOf(const Scenario &s, const CapacityResult &r)
{
    Deployment d;
    d.perGroup = r.distribution.sessionsAtRisk;
    if (s.targetSessions && r.distribution.gpusNeeded) {
        d.sessions = *s.targetSessions;
        d.gpus = *r.distribution.gpusNeeded;
    } else {
        d.sessions = d.perGroup;
        d.gpus = s.tp;
    }
    d.groups = d.gpus / std::max(1, s.tp);
    if (const auto price = s.effectivePrice()) {
        d.perHour = *price * double(d.gpus);
        d.perMonth = *d.perHour * 730.0;
    }
    // Per session-hour: the one figure the window and `plan` show (computeCapacity's price x
    // GPUs of a TP group / its sessions at risk), never the month over the target.
    d.perSessionHour = r.costPerSessionHourUsd;
    return d;
}

QString money(const std::optional<double> &v)
{
    return v ? Units::formatUsd(*v) : tr("set a price");
}

// Every value of the scenario that differs from its preset, in words: what-ifs
// (the model or card changed) and settings (a precision or price chosen).
QStringList whatIfs(const Scenario &s, UnitSystem u)
{
    QStringList out;
    if (s.kvHeadsOverride && *s.kvHeadsOverride != s.model.kvHeads)
        out << tr("KV heads %1 (what-if; the model has %2)").arg(*s.kvHeadsOverride).arg(s.model.kvHeads);
    if (s.gpuMemoryBytes && *s.gpuMemoryBytes != s.gpu.memoryBytes)
        out << tr("card memory %1 (what-if; the %2 has %3)").arg(Units::formatBytes(*s.gpuMemoryBytes, u), s.gpu.name, Units::formatBytes(s.gpu.memoryBytes, u));
    if (s.weightsBytes)
        out << tr("weights %1 (what-if; not the checkpoint's size)").arg(Units::formatBytes(*s.weightsBytes, u));
    if (s.workspaceBytes)
        out << tr("workspace %1 per card (what-if; not the engine's rule)").arg(Units::formatBytes(*s.workspaceBytes, u));
    if (s.lengthScale != 1.0)
        out << tr("every session length × %1 (what-if; the trace as recorded is × 1)").arg(Units::formatDecimal(s.lengthScale, 3));
    return out;
}

// One variation of the scenario for the sensitivity table.
struct Variant
{
    QString kind;    // the input varied, for "the assumptions that move the answer most"
    QString change;  // in words
    Scenario scenario;
};

QVector<Variant> variantsOf(const Scenario &s, const CapacityResult &r)
{
    // A count times f, held to 1 .. 2^63 - 1 (a cap of 2^63 - 1 times 1.5 would not fit 64 bits).
    auto scaledCount = [](qint64 v, double f) {
        const long double x = std::round((long double)v * (long double)f);
        return x >= 9.2e18L ? std::numeric_limits<qint64>::max() : std::max<qint64>(1, qint64(x));
    };
    QVector<Variant> out;
    auto with = [&](const QString &kind, const QString &change, const std::function<void(Scenario &)> &edit) {
        Scenario v = s;
        edit(v);
        out << Variant{kind, change, v};
    };
    for (const double f : {0.5, 1.5}) {
        const QString pct = f < 1 ? QStringLiteral("−50%") : QStringLiteral("+50%");
        if (s.retainTokens) {
            const qint64 cap = scaledCount(*s.retainTokens, f);
            with(tr("the retention cap"), tr("cap %1 (%2 tokens)").arg(pct, Units::formatCount(cap)), [cap](Scenario &v) { v.retainTokens = cap; });
        } else if (s.distribution) {
            with(tr("the session lengths"), tr("every length %1").arg(pct), [f](Scenario &v) { v.lengthScale *= f; });
        } else {
            const qint64 c = scaledCount(s.contextTokens, f);
            with(tr("the context"), tr("context %1 (%2 tokens)").arg(pct, Units::formatCount(c)), [c](Scenario &v) { v.contextTokens = c; });
        }
    }
    const Dtype other = r.kvDtype == Dtype::FP8 ? Dtype::BF16 : Dtype::FP8;
    with(tr("the KV precision"), tr("KV cache %1 (now %2)").arg(Dtypes::name(other), Dtypes::name(r.kvDtype)), [other](Scenario &v) { v.kvDtype = other; });
    if (s.distribution)
        for (const double p : {1e-2, 1e-4, 1e-6})
            if (std::abs(p - s.risk) > 1e-12)
                with(tr("the risk"), tr("risk %1").arg(Units::formatRisk(p)), [p](Scenario &v) { v.risk = p; });
    // Tensor parallelism as the levers and `plan --solve min-gpus` try it: a larger TP can hold the
    // target on fewer GPUs (README's example: TP 8 holds the 1,000 sessions on 8 GPUs, TP 4 needs 12).
    for (const int tp : tensorParallelSizes())
        if (tp != s.tp)
            with(tr("tensor parallelism"), tr("TP %1 (now %2)").arg(tp).arg(s.tp), [tp](Scenario &v) { v.tp = tp; });
    const qint64 memory = s.effectiveGpuMemoryBytes();
    std::optional<GpuSpec> next; // the smallest larger preset card (isLargerCard: not a sibling of the same size)
    for (const PresetRecord &p : PresetStore::builtInPresets())
        if (p.kind == QLatin1String("gpu")) {
            const GpuSpec g = GpuSpec::fromPreset(p.json);
            // A priced card before an unpriced one, then the smallest.
            const bool better = !next || (g.priceUsdPerHour.has_value() != next->priceUsdPerHour.has_value() ? g.priceUsdPerHour.has_value()
                                                                                                             : g.memoryBytes < next->memoryBytes);
            if (isLargerCard(g, memory) && better)
                next = g;
        }
    if (next)
        with(tr("the card"), tr("next card up: %1").arg(next->name), [g = *next](Scenario &v) {
            v.gpu = g;
            v.gpuMemoryBytes.reset();
            v.priceUsdPerGpuHour.reset();
        });
    return out;
}

QString signedPercent(double now, double then)
{
    if (now <= 0)
        return then > 0 ? tr("from none") : QStringLiteral("—");
    const double c = (then / now - 1) * 100;
    return (c >= 0 ? QStringLiteral("+") : QStringLiteral("−")) + tr("%1%").arg(Units::formatDecimal(std::abs(c), 0));
}

// A block of the flowing layout: HTML, or a chart `share` of the body high.
struct Block
{
    QString html;
    QChart *chart = nullptr;
    double share = 0;
    bool newPage = false;
    QVector<QChart *> row; // charts side by side (the comparison)
    bool isChart() const { return chart || !row.isEmpty(); }
};

// How far the layout may grow a chart to fill the page it ends: up to twice its share of the
// page, at most 0.6 of it. A chart is never shrunk (Qt Charts elides its axis titles and labels
// below about 300 pixels at 96 dpi, a share of 0.3 on A4).
constexpr double kGrow = 2.0, kTallest = 0.6;

// Blocks laid on pages of `room` pixels with `gap` between blocks at their `natural` heights: a
// block that does not fit what is left of a page starts the next, taking the text block before it
// when that is the heading of a chart (no heading at the foot of a page, its chart alone on the
// next); then each page's charts grow into what is left of it, so no page ends in white space
// below a small chart.
struct Laid
{
    QVector<int> page;
    QVector<double> top, height;
};

Laid layBlocks(const QVector<Block> &blocks, const QVector<double> &natural, double room, double gap)
{
    const int n = int(blocks.size());
    Laid out;
    out.page.resize(n);
    out.top.resize(n);
    out.height = natural;
    int first = 0, current = 0; // blocks [first, i) are on page `current`
    double y = 0;
    for (int i = 0; i < n; ++i) {
        if (i > first && (blocks.at(i).newPage || y + natural.at(i) > room)) {
            int start = i;
            if (!blocks.at(i).newPage && blocks.at(i).isChart() && i - 1 > first && !blocks.at(i - 1).isChart()
                && natural.at(i - 1) + gap + natural.at(i) <= room)
                start = i - 1;
            ++current;
            first = start;
            y = 0;
            for (int k = start; k < i; ++k) {
                out.page[k] = current;
                y += natural.at(k) + gap;
            }
        }
        out.page[i] = current;
        y += natural.at(i) + gap;
    }
    for (int from = 0; from < n;) {
        int to = from;
        while (to + 1 < n && out.page.at(to + 1) == out.page.at(from))
            ++to;
        double texts = gap * (to - from), charts = 0;
        for (int k = from; k <= to; ++k)
            (blocks.at(k).isChart() ? charts : texts) += natural.at(k);
        const double factor = charts > 0 ? std::clamp((room - texts) / charts, 1.0, kGrow) : 1.0;
        double top = 0;
        for (int k = from; k <= to; ++k) {
            if (blocks.at(k).isChart())
                out.height[k] = std::max(natural.at(k), std::min(natural.at(k) * factor, room * kTallest));
            out.top[k] = top;
            top += out.height.at(k) + gap;
        }
        from = to + 1;
    }
    return out;
}
} // namespace

bool ReportWriter::paint(QPagedPaintDevice *device, const ReportInput &in, QString *error)
{
    const Scenario &s = in.scenario;
    const CapacityResult &r = in.result;
    const UnitSystem u = in.units;
    auto fmt = [u](qint64 b) { return Units::formatBytes(b, u); };
    if (!r.ok) {
        *error = r.error;
        return false;
    }
    const DistributionFigures &d = r.distribution;
    const QString version = QCoreApplication::applicationVersion();
    const QString name = in.name.isEmpty() ? tr("Untitled scenario") : in.name;
    const QString title = in.unsavedChanges ? tr("%1 (unsaved changes)").arg(name) : name;
    const QString basis = basisOf(s);
    const Deployment dep = deploymentOf(s, r);
    const auto price = s.effectivePrice();
    const QStringList ifs = whatIfs(s, u);

    // Chart widgets own their charts; keep them alive while painting. The memory chart's bands come
    // from MemoryChartView (its segments), so side pools drawn there appear here too.
    // Against a distribution, the memory chart shows the recommended sessions at the mean length:
    // the pool as it stands on average at the risk-based count.
    // Under a cap the mean is the capped lengths' (what a session holds), said as such, as the
    // window's Lengths tab says it beside the lengths' own mean.
    const qint64 meanHeld = d.meanHeldTokens(s.retainTokens.has_value());
    const QString meanHeldText = s.retainTokens ? tr("%1 tokens, the mean of the lengths as capped").arg(Units::formatCount(meanHeld))
                                                : tr("%1 tokens").arg(Units::formatCount(meanHeld));
    const QPalette paper = paperPalette();
    MemoryChartView memory;
    memory.setPalette(paper);
    if (s.distribution && d.sessionsAtRisk > 0) {
        Scenario atRisk = s;
        atRisk.sessions = d.sessionsAtRisk;
        atRisk.contextTokens = meanHeld;
        atRisk.distribution.reset();
        memory.setResult(computeCapacity(atRisk), s.tp, u);
        // Short enough for the half-page chart's width (a longer title was cut: "the me...").
        memory.chart()->setTitle(tr("Memory per GPU: %1").arg(MemoryChartView::sessionsAtMean(d.sessionsAtRisk, s, d)));
    } else if (d.sessionsAtRisk > 0) {
        // Fixed lengths: the count the decision serves, each session at the context (as the
        // decision's sentence), not the sessions asked in the window.
        Scenario decided = s;
        decided.sessions = d.sessionsAtRisk;
        memory.setResult(computeCapacity(decided), s.tp, u);
        memory.chart()->setTitle(tr("Memory per GPU: %1 × %2 tokens").arg(Units::plural(d.sessionsAtRisk, tr("session"), tr("sessions")),
                                                                           Units::formatCount(r.reservedTokensPerSession)));
    } else {
        memory.setResult(r, s.tp, u);
    }
    DistributionChartView distribution;
    distribution.setPalette(paper);
    distribution.show(s.distribution ? s.distribution->scaled(s.lengthScale, s.field(Input::LengthScale)) : LengthDistribution::fixed(r.reservedTokensPerSession),
                      s.retainTokens.value_or(0), {});
    ThroughputChartView throughput;
    throughput.setPalette(paper);
    throughput.show(d);
    std::unique_ptr<QChart> sessions(sessionsChart(s, &distribution));

    // The sensitivity rows: one computeCapacity() per variation.
    struct Row
    {
        Variant v;
        CapacityResult r;
        Deployment dep;
    };
    QVector<Row> rows;
    const QString tpKind = tr("tensor parallelism"), cardKind = tr("the card");
    for (const Variant &v : variantsOf(s, r)) {
        const CapacityResult vr = computeCapacity(v.scenario);
        // A TP the model cannot split to, or at which no session fits, is no choice (as solveMinGpus skips it).
        if (v.kind == tpKind && (!vr.ok || vr.distribution.sessionsAtRisk < 1))
            continue;
        rows << Row{v, vr, vr.ok ? deploymentOf(v.scenario, vr) : Deployment{}};
    }
    const double perGpu = double(dep.perGroup) / s.tp;
    auto perGpuOf = [](const Row &x) { return double(x.dep.perGroup) / x.v.scenario.tp; };
    // A row whose context the plan finds past the model's maximum (CapacityResult::contextBeyondMax:
    // max_position_embeddings, or --max-model-len when given) says so: no engine starts there.
    auto pastMaximum = [](const Row &x) -> QString {
        if (!x.r.ok || !x.r.contextBeyondMax)
            return QString();
        const qint64 maximum = x.v.scenario.effectiveMaxModelLen();
        return x.v.scenario.maxModelLen ? tr(", <i>past --max-model-len %1</i>").arg(Units::formatCount(maximum))
                                        : tr(", <i>past the model's %1-token maximum</i>").arg(Units::formatCount(maximum));
    };
    // The engine's band before hardware, as sessions in proportion to the pool's tokens.
    const EngineFigures &e = r.engineFigures;
    const bool band = e.kvCacheTokensHigh > e.kvCacheTokensLow && e.kvCacheTokens > 0;
    const qint64 sessionsLow = band ? qint64(double(dep.perGroup) * double(e.kvCacheTokensLow) / double(e.kvCacheTokens)) : 0;
    const qint64 sessionsHigh = band ? qint64(double(dep.perGroup) * double(e.kvCacheTokensHigh) / double(e.kvCacheTokens)) : 0;

    QVector<Block> blocks;
    auto text = [&blocks](const QString &html, bool newPage = false) { blocks << Block{html, nullptr, 0, newPage, {}}; };
    auto chart = [&blocks](QChart *c, double share) { blocks << Block{QString(), c, share, false, {}}; };

    // 1. The decision.
    QString sentence;
    const QString traffic = s.distribution ? tr("of this traffic") : tr("of %1 tokens").arg(Units::formatCount(s.retainTokens ? std::min(*s.retainTokens, s.contextTokens) : s.contextTokens));
    const QString cards = tr("%1 × %2").arg(Units::formatCount(dep.gpus), esc(s.gpu.name));
    if (dep.perGroup <= 0) {
        sentence = tr("%1 does not serve a session on %2: %3").arg(esc(s.model.name), cards, esc(capacityVerdict(s, r, u)));
    } else {
        const QString moneyPart = dep.perMonth ? tr("%1 a month, %2").arg(Units::formatUsd(*dep.perMonth),
                                                                          Units::formatUsdPer(*dep.perSessionHour, tr("session-hour"), tr("session-hours")))
                                               : tr("set a price per GPU-hour for the cost");
        sentence = tr("Serve %1 concurrent %2 %3 on %4: %5; the KV cache is the limit.")
                       .arg(Units::formatCount(dep.sessions), dep.sessions == 1 ? tr("session") : tr("sessions"), traffic, cards, moneyPart);
    }
    QString p1 = QStringLiteral("<h1>%1</h1><p>%2 · %3 · %4</p>")
                     .arg(esc(title), tr("Headroom capacity report"), esc(s.model.name) + tr(" on ") + esc(s.gpu.name),
                          QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    p1 += QStringLiteral("<h2>%1</h2><p style='font-size:13pt'><b>%2</b></p>").arg(tr("The decision"), sentence);
    if (!ifs.isEmpty())
        p1 += QStringLiteral("<p><b>%1</b> %2.</p>").arg(tr("What-ifs in force:"), esc(ifs.join(QStringLiteral("; "))));
    text(p1);
    QString fleet = QStringLiteral("<h3>%1</h3><table cellspacing=3>").arg(tr("Fleet and money (%1)").arg(basis));
    fleet += row(tr("GPUs"), tr("%1 × %2 = %3 of %4 (one model replica each)")
                                 .arg(Units::formatCount(dep.gpus), esc(s.gpu.name), Units::plural(dep.groups, tr("TP group"), tr("TP groups")),
                                      Units::plural(s.tp, tr("GPU"), tr("GPUs"))));
    fleet += row(tr("Sessions"), s.targetSessions ? tr("%1 asked; %2 per TP group, %3 per GPU")
                                                        .arg(Units::formatCount(*s.targetSessions), Units::formatCount(dep.perGroup), Units::formatDecimal(perGpu, 1))
                                                  : tr("%1 per TP group (no target given: one group), %2 per GPU").arg(Units::formatCount(dep.perGroup), Units::formatDecimal(perGpu, 1)));
    // The fleet is sized at the risk-based count; engines admitting the count to deploy (the
    // admission limit, with the margin) on it may hold fewer than the target, and that is said.
    if (s.targetSessions && d.gpusNeeded && d.gpusNeededAtAdmissionLimit && *d.gpusNeededAtAdmissionLimit > *d.gpusNeeded)
        fleet += row(tr("With the margin"), tr("admitting the count to deploy, %1 per TP group (the budget less a %2% margin), these GPUs hold %3; "
                                               "%4 hold %5 with the margin too")
                                                .arg(Units::formatCount(d.admissionLimit), Units::formatDecimal(s.marginFraction * 100, 1),
                                                     Units::formatCount(d.admissionLimit * dep.groups),
                                                     Units::plural(*d.gpusNeededAtAdmissionLimit, tr("GPU"), tr("GPUs")), Units::formatCount(*s.targetSessions)));
    fleet += row(tr("Money per month"), dep.perMonth ? tr("<b>%1</b> (%2 × %3 per GPU-hour × 730 hours)")
                                                           .arg(Units::formatUsd(*dep.perMonth), Units::plural(dep.gpus, tr("GPU"), tr("GPUs")), Units::formatUsd(*price))
                                                     : tr("set a price per GPU-hour"));
    if (dep.perSessionHour)
        fleet += row(tr("Money per session-hour"), tr("%1 (%2 per GPU-hour × %3 ÷ %4 per TP group)")
                                                       .arg(Units::formatUsdPer(*dep.perSessionHour, tr("session-hour"), tr("session-hours")), Units::formatUsd(*price),
                                                            Units::plural(s.gpusPerReplica(), tr("GPU"), tr("GPUs")), Units::plural(dep.perGroup, tr("session"), tr("sessions"))));
    if (d.costPerMillionTokensUsd)
        fleet += row(tr("Money per million output tokens"), tr("%1 (decode at %2 sessions per TP group)").arg(Units::formatUsd(*d.costPerMillionTokensUsd), Units::formatCount(dep.perGroup)));
    // A choice the sensitivity table prices (another TP, the next card up) that serves the same
    // sessions for less is said beside the money: for the target, the month; for one TP group, the
    // session-hour.
    const Row *cheaper = nullptr;
    auto costOf = [&s](const Deployment &x) { return s.targetSessions ? x.perMonth : x.perSessionHour; };
    for (const Row &x : rows)
        if (x.r.ok && (x.v.kind == tpKind || x.v.kind == cardKind) && x.dep.perGroup > 0 && (!s.targetSessions || x.dep.sessions == dep.sessions)
            && costOf(x.dep) && costOf(dep) && *costOf(x.dep) < *costOf(dep) && (!cheaper || *costOf(x.dep) < *costOf(cheaper->dep)))
            cheaper = &x;
    if (cheaper)
        fleet += row(tr("<b>Cheaper</b>"), s.targetSessions
                         ? tr("<b>%1: %2 a month on %3</b>, the same %4 sessions")
                               .arg(esc(cheaper->v.change), Units::formatUsd(*cheaper->dep.perMonth), Units::plural(cheaper->dep.gpus, tr("GPU"), tr("GPUs")),
                                    Units::formatCount(dep.sessions))
                         : tr("<b>%1: %2 per TP group, %3</b>")
                               .arg(esc(cheaper->v.change), Units::plural(cheaper->dep.perGroup, tr("session"), tr("sessions")),
                                    Units::formatUsdPer(*cheaper->dep.perSessionHour, tr("session-hour"), tr("session-hours"))));
    fleet += QStringLiteral("</table>");
    text(fleet);
    // Past eight legend entries (side pools on) the legend down the right needs more height.
    chart(memory.chart(), memory.legendEntries() > 8 ? 0.5 : 0.36);
    // The three assumptions that move the answer most: the sensitivity rows (and the engine's band)
    // with the largest change in sessions per GPU, one per input.
    QVector<QPair<double, QString>> moves;
    QStringList seen;
    QVector<const Row *> sorted;
    for (const Row &x : rows) // the card and the TP are choices, not assumptions
        if (x.r.ok && x.v.kind != cardKind && x.v.kind != tpKind)
            sorted << &x;
    std::stable_sort(sorted.begin(), sorted.end(), [&](const Row *a, const Row *b) {
        return std::abs(perGpuOf(*a) - perGpu) > std::abs(perGpuOf(*b) - perGpu);
    });
    for (const Row *x : sorted)
        if (!seen.contains(x->v.kind)) {
            seen << x->v.kind;
            moves << qMakePair(std::abs(perGpuOf(*x) - perGpu),
                               tr("<b>%1</b>: with %2%5, %3 sessions per GPU (%4)")
                                   .arg(x->v.kind, esc(x->v.change), Units::formatDecimal(perGpuOf(*x), 1), signedPercent(perGpu, perGpuOf(*x)),
                                        pastMaximum(*x)));
        }
    if (band)
        moves << qMakePair(double(dep.perGroup - sessionsLow) / s.tp,
                           tr("<b>the engine's budget</b>: before measuring on the card, about %1 to %2 sessions per TP group").arg(Units::formatCount(sessionsLow), Units::formatCount(sessionsHigh)));
    std::stable_sort(moves.begin(), moves.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    // As many as there are (an input whose rows all failed has none), named by their number.
    const int shown = std::min<int>(3, int(moves.size()));
    QString p1b = QStringLiteral("<h3>%1</h3><ol>").arg(shown == 3   ? tr("The three assumptions that move the answer most")
                                                        : shown == 2 ? tr("The two assumptions that move the answer most")
                                                                     : tr("The assumption that moves the answer most"));
    for (int i = 0; i < shown; ++i)
        p1b += QStringLiteral("<li>%1</li>").arg(moves.at(i).second);
    p1b += QStringLiteral("</ol><h3>%1</h3><p>").arg(tr("The risk accepted"));
    if (s.distribution)
        p1b += tr("A risk of %1 that a peak of concurrent sessions overflows the KV cache; then the engine queues or preempts sessions until some finish.")
                   .arg(Units::formatRisk(s.risk));
    else
        p1b += tr("None from lengths: every session is reserved at its full %1 tokens, so the cache cannot overflow at this count.")
                   .arg(Units::formatCount(r.reservedTokensPerSession));
    if (s.retainTokens && (s.distribution ? d.truncatedShare > 0 : *s.retainTokens < s.contextTokens))
        p1b += QLatin1Char(' ') + (s.distribution ? tr("The cap costs history: %1% of sessions lose their oldest tokens.").arg(Units::formatDecimal(d.truncatedShare * 100, 2))
                                                  : tr("The cap costs history: every session keeps only its last %1 tokens.").arg(Units::formatCount(*s.retainTokens)));
    p1b += QStringLiteral("</p>");
    text(p1b);

    // 2. Per session and per card, on the one basis.
    QString t1 = QStringLiteral("<h2>%1</h2><table cellspacing=3>").arg(tr("Per session and per card, %1").arg(basis));
    t1 += row(tr("KV bytes per token"), QStringLiteral("%1 (%2)").arg(Units::formatExactBytes(r.kvBytesPerToken), fmt(r.kvBytesPerToken)));
    if (s.tp > 1)
        t1 += row(tr("KV bytes per token per GPU"), Units::formatExactBytes(r.kvBytesPerTokenPerGpu));
    if (s.distribution)
        t1 += row(tr("KV bytes per session per GPU, on average"), QStringLiteral("%1 (%2)").arg(fmt(qint64(std::llround(d.meanSessionBytesPerGpu))),
                                                                                            Units::formatExactBytes(qint64(std::llround(d.meanSessionBytesPerGpu)))));
    else
        t1 += row(tr("KV bytes per session per GPU"), tr("%1 (%2 tokens)").arg(fmt(r.reservedSessionBytesPerGpu), Units::formatCount(r.reservedTokensPerSession)));
    t1 += row(tr("KV budget per GPU"), fmt(r.kvBudgetBytesPerGpu));
    t1 += row(tr("Sessions per TP group"), Units::formatCount(dep.perGroup));
    t1 += row(tr("Sessions per GPU"), Units::formatDecimal(perGpu, 1));
    t1 += row(tr("Money per session-hour, every TP group full"), r.costPerSessionHourUsd ? Units::formatUsdPer(*r.costPerSessionHourUsd, tr("session-hour"), tr("session-hours")) : tr("set a price"));
    // Issue 14's side pools: the vision encoder and the host tier.
    if (s.model.visionParams > 0)
        t1 += row(tr("Vision encoder"), r.encoderLoaded ? tr("%1 of weights per GPU; encoder cache %2 per GPU; %3 image tokens per request")
                                                              .arg(fmt(r.encoderWeightsBytesPerGpu), fmt(r.encoderCacheBytesPerGpu), Units::formatCount(r.imageTokensPerRequest))
                                                        : tr("not loaded (no images under vLLM); no encoder cache"));
    if (s.decodingShare || s.hostKvMemoryBytes) {
        auto ms = [](const std::optional<double> &v) { return v ? tr("%1 ms").arg(Units::formatDecimal(*v, 1)) : tr("unknown"); };
        t1 += row(tr("Sessions kept warm per node (%1 host memory, %2 decoding)")
                      .arg(fmt(r.warm.hostKvBytesPerNode), Units::formatDecimal(r.warm.decodingShare * 100, 1) + QLatin1Char('%')),
                  tr("%1 retained, %2 decoding per GPU; one comes back in %3 over the host link (recomputing it: %4)")
                      .arg(Units::formatCount(r.warm.retainedPerNode), Units::formatDecimal(r.warm.decodingPerGpu, 2), ms(r.warm.atContext.resumeMs),
                           ms(r.warm.atContext.recomputeMs)));
    }
    t1 += QStringLiteral("</table>");
    if (s.distribution) {
        t1 += QStringLiteral("<h3>%1</h3><table cellspacing=3>").arg(tr("The same card on other bases (each row its own basis)"));
        t1 += row(tr("Worst case: every session at the longest, %1 tokens").arg(Units::formatCount(s.retainTokens ? std::min(*s.retainTokens, d.maxTokens) : d.maxTokens)),
                  tr("%1 sessions per TP group").arg(Units::formatCount(d.sessionsWorstCase)));
        t1 += row(tr("At the mean length, %1 (overflows about half the time)").arg(meanHeldText), tr("%1 sessions per TP group").arg(Units::formatCount(d.sessionsAtMean)));
        t1 += row(tr("Admission limit: at a %1 risk against the budget less %2%").arg(Units::formatRisk(s.risk), Units::formatDecimal(s.marginFraction * 100, 1)),
                  tr("%1 sessions per TP group").arg(Units::formatCount(d.admissionLimit)));
        t1 += QStringLiteral("</table>");
    }
    text(t1);

    // Sensitivity and the engine's band.
    QString sens = QStringLiteral("<h2>%1</h2><p>%2</p><table width=100% cellspacing=0 cellpadding=2 border=1 style='font-size:8pt'><tr><th width=28%>%3</th><th width=13%>%4</th><th width=11%>%5</th><th width=8%>%6</th><th width=13%>%7</th><th width=27%>%8</th></tr>")
                       .arg(tr("Sensitivity, %1").arg(basis), tr("Each row changes one input and recomputes the plan; the fleet is resized for the target (or stays one TP group)."),
                            tr("Change"), tr("Sessions per TP group"), tr("Sessions per GPU"), tr("GPUs"), tr("Money per month"), tr("Per session-hour"));
    auto srow = [&](const QString &label, qint64 group, double gpu, const Deployment &x) {
        return QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td><td align=right>%5</td><td align=right>%6</td></tr>")
            .arg(label, Units::formatCount(group), Units::formatDecimal(gpu, 1), Units::formatCount(x.gpus), money(x.perMonth),
                 x.perSessionHour ? Units::formatUsdPer(*x.perSessionHour, tr("session-hour"), tr("session-hours")) : QStringLiteral("—"));
    };
    sens += srow(tr("<b>Now</b>"), dep.perGroup, perGpu, dep);
    for (const Row &x : rows)
        sens += x.r.ok ? srow(esc(x.v.change) + pastMaximum(x), x.dep.perGroup, perGpuOf(x), x.dep)
                       : QStringLiteral("<tr><td>%1</td><td colspan=5>%2</td></tr>").arg(esc(x.v.change), esc(x.r.error));
    sens += QStringLiteral("</table>");
    if (band)
        sens += QStringLiteral("<p>%1</p>").arg(tr("Before measuring on the card: the engine's KV cache is expected to hold %1 tokens, but could hold from %2 to %3 "
                                                  "(the spread of the checked public logs), so about %4 to %5 sessions per TP group rather than %6. "
                                                  "Calibrate from one startup log to remove the band.")
                                                   .arg(Units::formatCount(e.kvCacheTokens), Units::formatCount(e.kvCacheTokensLow), Units::formatCount(e.kvCacheTokensHigh),
                                                        Units::formatCount(sessionsLow), Units::formatCount(sessionsHigh), Units::formatCount(dep.perGroup)));
    text(sens);

    // Inputs, every value that differs from its preset marked.
    QString in1 = QStringLiteral("<h2>%1</h2><table cellspacing=3>").arg(tr("Inputs"));
    const QString heads = s.kvHeadsOverride && *s.kvHeadsOverride != s.model.kvHeads
        ? tr("<b>KV heads %1 (what-if; the model has %2)</b>").arg(*s.kvHeadsOverride).arg(s.model.kvHeads)
        : tr("%1 KV heads").arg(s.model.kvHeads);
    in1 += row(tr("Model"), tr("%1 (%2 layers, %3, head_dim %4, %5 parameters)")
                                .arg(esc(s.model.name)).arg(s.model.layers()).arg(heads).arg(s.model.headDim).arg(Units::formatCount(s.model.totalParams)));
    in1 += row(tr("GPU"), s.gpuMemoryBytes && *s.gpuMemoryBytes != s.gpu.memoryBytes
                              ? tr("%1, <b>%2 (what-if; the card has %3)</b>").arg(esc(s.gpu.name), fmt(*s.gpuMemoryBytes), fmt(s.gpu.memoryBytes))
                              : tr("%1 Exactly %2.").arg(esc(MemoryChartView::cardNote(s.gpu, r.gpuMemoryBytes, u)), Units::formatExactBytes(r.gpuMemoryBytes)));
    in1 += row(tr("Tensor parallelism"), QString::number(s.tp));
    Scenario preset = s;
    preset.weightsDtype.reset();
    preset.kvDtype.reset();
    const Dtype wPreset = preset.effectiveWeightsDtype(), kvPreset = preset.effectiveKvDtype();
    in1 += row(tr("Weights precision"), r.weightsDtype != wPreset ? tr("<b>%1 (set; the checkpoint is %2)</b>").arg(Dtypes::name(r.weightsDtype), Dtypes::name(wPreset))
                                                                  : Dtypes::name(r.weightsDtype));
    in1 += row(tr("KV-cache precision"), r.kvDtype != kvPreset ? tr("<b>%1 (set; the model's default is %2)</b>").arg(Dtypes::name(r.kvDtype), Dtypes::name(kvPreset))
                                                               : Dtypes::name(r.kvDtype));
    if (s.weightsBytes)
        in1 += row(tr("Weights"), tr("<b>%1 (what-if; not the checkpoint's size)</b>").arg(fmt(*s.weightsBytes)));
    if (s.workspaceBytes)
        in1 += row(tr("Workspace"), tr("<b>%1 per card (what-if; not the engine's rule)</b>").arg(fmt(*s.workspaceBytes)));
    in1 += row(tr("Engine rule"), esc(Engines::describe(s.engine)));
    // Side pools (issue #14), each only when on: what they take beside weights and KV.
    if (s.speculative.on())
        in1 += row(tr("Speculative decoding"),
                   tr("<b>%1, %2 per step</b>: %3 of draft weights per GPU, %4 of draft KV per token%5, %6 per session")
                       .arg(s.speculative.draftModel ? tr("draft %1").arg(esc(s.speculative.draftModel->name))
                            : s.speculative.draftLayers == 1 ? tr("1 MTP / EAGLE layer")
                            : s.speculative.draftLayers > 1  ? tr("%1 MTP / EAGLE layers").arg(s.speculative.draftLayers)
                                                             : tr("no draft (n-gram)"))
                       .arg(s.speculative.speculativeTokens == 1 ? tr("1 token") : tr("%1 tokens").arg(s.speculative.speculativeTokens))
                       .arg(fmt(r.draftWeightsBytesPerGpu), Units::formatExactBytes(s.tp > 1 ? r.draftKvBytesPerTokenPerGpu : r.draftKvBytesPerToken),
                            s.tp > 1 ? tr(" per GPU") : QString(),
                            s.speculative.speculativeTokens == 1 ? tr("1 lookahead slot") : tr("%1 lookahead slots").arg(s.speculative.speculativeTokens)));
    if (s.lora.on())
        in1 += row(tr("LoRA slots"), tr("<b>%1 slots of rank %2</b> on %3: %4 per GPU")
                                         .arg(s.lora.maxLoras).arg(s.lora.maxRank)
                                         .arg(s.lora.effectiveModules().join(QStringLiteral(", ")), fmt(r.loraBytesPerGpu)));
    in1 += row(tr("Sessions asked"), tr("%1 per TP group%2").arg(Units::formatCount(s.sessions),
                                                                  s.targetSessions ? tr("; the fleet must hold %1").arg(Units::formatCount(*s.targetSessions)) : QString()));
    in1 += row(tr("Session lengths"), s.distribution ? esc(QFileInfo(s.distribution->spec).fileName().isEmpty() ? s.distribution->spec : QFileInfo(s.distribution->spec).fileName())
                                                         + (s.lengthScale != 1 ? tr(", <b>× %1 (what-if; the trace as recorded is × 1)</b>").arg(Units::formatDecimal(s.lengthScale, 3)) : QString())
                                                   : tr("every session at %1 tokens").arg(Units::formatCount(s.contextTokens)));
    // The length the per-session figures are for, which the lengths alone do not say.
    if (s.distribution)
        in1 += row(tr("Context"), r.reservedTokensPerSession == s.contextTokens
                                      ? esc(sessionBasis(s, r))
                                      : tr("%1 tokens; every per-session figure at %2").arg(Units::formatCount(s.contextTokens), esc(sessionBasis(s, r))));
    if (s.retainTokens)
        in1 += row(tr("Retention cap"), tr("%1 tokens").arg(Units::formatCount(*s.retainTokens)));
    if (s.distribution)
        in1 += row(tr("Risk accepted"), Units::formatRisk(s.risk));
    in1 += row(tr("Price"), !price ? tr("none published: set a price")
                            : s.priceUsdPerGpuHour && s.gpu.priceUsdPerHour && *s.priceUsdPerGpuHour != *s.gpu.priceUsdPerHour
                                ? tr("<b>%1 per GPU-hour (set; the preset's is %2)</b>").arg(Units::formatUsd(*price), Units::formatUsd(*s.gpu.priceUsdPerHour))
                                : tr("%1 per GPU-hour").arg(Units::formatUsd(*price)));
    in1 += QStringLiteral("</table><p><small>%1</small></p>").arg(tr("Bold: differs from the preset (a what-if changes the model or card; a setting is a choice). Sources: appendix."));
    text(in1);

    // Lengths and risk.
    QString p3 = QStringLiteral("<h2>%1</h2><table cellspacing=3>").arg(tr("Session lengths and risk, %1").arg(basis));
    if (s.distribution)
        p3 += row(s.retainTokens ? tr("Lengths before the cap") : tr("Lengths"), tr("mean %1, p50 %2, p90 %3, p99 %4, max %5 tokens")
                                     .arg(Units::formatCount(qint64(std::llround(d.meanTokens))), Units::formatCount(d.p50), Units::formatCount(d.p90),
                                          Units::formatCount(d.p99), Units::formatCount(d.maxTokens)));
    p3 += row(tr("Overflow probability at %1").arg(Units::plural(s.sessions, tr("session"), tr("sessions"))),
              d.overflowProbability <= 0 ? tr("none") : Units::formatRisk(d.overflowProbability));
    if (s.retainTokens && s.distribution)
        p3 += row(tr("Cost of the cap"), tr("%1% of sessions lose history; %2 tokens dropped on average, p99 %3")
                                             .arg(Units::formatDecimal(d.truncatedShare * 100, 2), Units::formatCount(qint64(std::llround(d.meanTokensDropped))),
                                                  Units::formatCount(d.p99TokensDropped)));
    if (d.hasPrompts)
        p3 += row(tr("Admission by prompt only"), tr("%1 sessions, overflow risk %2 once grown")
                                                      .arg(Units::formatCount(d.admissionByPrompt), Units::formatRisk(d.riskAtGrownSize)));
    p3 += QStringLiteral("</table>");
    text(p3);
    if (s.distribution || s.retainTokens) // a fixed length without a cap is one bar: nothing to read
        chart(distribution.chart(), 0.3);
    chart(sessions.get(), 0.3);

    QString p4 = QStringLiteral("<h2>%1</h2><table cellspacing=3>").arg(tr("Throughput and latency, at %1 sessions per TP group").arg(Units::formatCount(dep.perGroup)));
    if (d.itlMsAtRisk)
        p4 += row(tr("Inter-token latency"), tr("%1 ms").arg(Units::formatDecimal(*d.itlMsAtRisk, 1)));
    if (d.tokensPerSecondPerGpu)
        p4 += row(tr("Tokens per second per GPU"), Units::formatCount(qint64(std::llround(*d.tokensPerSecondPerGpu))));
    if (d.ttftMs)
        p4 += row(tr("Time to first token (mean prompt)"), tr("%1 ms").arg(Units::formatDecimal(*d.ttftMs, 1)));
    p4 += QStringLiteral("</table>");
    text(p4);
    chart(throughput.chart(), 0.3);

    // Comparison.
    std::vector<std::unique_ptr<MemoryChartView>> compareCharts;
    if (!in.comparisons.isEmpty()) {
        QVector<QPair<QString, Scenario>> all{{in.name.isEmpty() ? tr("This scenario") : in.name, s}};
        all += in.comparisons;
        QVector<CapacityResult> results;
        for (const auto &c : all)
            results << computeCapacity(c.second);
        QString p6 = QStringLiteral("<h2>%1</h2><table cellspacing=3 border=1><tr><th></th>").arg(tr("Comparison"));
        for (const auto &c : all)
            p6 += QStringLiteral("<th>%1</th>").arg(esc(c.first));
        p6 += QStringLiteral("</tr>");
        using Value = std::function<QString(const Scenario &, const CapacityResult &)>;
        auto line = [&](const QString &label, const Value &value, bool onlyWhenDiffers) {
            QStringList v;
            for (int i = 0; i < all.size(); ++i)
                v << (results.at(i).ok ? value(all.at(i).second, results.at(i)) : results.at(i).error);
            if (onlyWhenDiffers && v.count(v.first()) == v.size())
                return;
            p6 += QStringLiteral("<tr><td>%1</td>").arg(label);
            for (int i = 0; i < v.size(); ++i)
                p6 += v.at(i) == v.first() || i == 0 ? QStringLiteral("<td>%1</td>").arg(esc(v.at(i))) : QStringLiteral("<td><b>%1</b></td>").arg(esc(v.at(i)));
            p6 += QStringLiteral("</tr>");
        };
        // Every input that differs, then the answers.
        p6 += QStringLiteral("<tr><td colspan=%1><i>%2</i></td></tr>").arg(all.size() + 1).arg(tr("Inputs that differ"));
        line(tr("Model"), [](const Scenario &x, const CapacityResult &) { return x.model.name; }, true);
        line(tr("GPU"), [](const Scenario &x, const CapacityResult &) { return x.gpu.name; }, true);
        line(tr("Card memory"), [&fmt](const Scenario &x, const CapacityResult &) { return fmt(x.effectiveGpuMemoryBytes()); }, true);
        line(tr("TP"), [](const Scenario &x, const CapacityResult &) { return QString::number(x.tp); }, true);
        line(tr("Weights precision"), [](const Scenario &, const CapacityResult &y) { return Dtypes::name(y.weightsDtype); }, true);
        line(tr("KV precision"), [](const Scenario &, const CapacityResult &y) { return Dtypes::name(y.kvDtype); }, true);
        line(tr("KV heads"), [](const Scenario &x, const CapacityResult &) {
            return x.kvHeadsOverride && *x.kvHeadsOverride != x.model.kvHeads ? tr("%1 (what-if; the model has %2)").arg(*x.kvHeadsOverride).arg(x.model.kvHeads)
                                                                              : QString::number(x.model.kvHeads);
        }, true);
        line(tr("Engine"), [](const Scenario &x, const CapacityResult &) { return Engines::name(x.engine); }, true);
        line(tr("Session lengths"), [](const Scenario &x, const CapacityResult &) {
            return x.distribution ? QFileInfo(x.distribution->spec).fileName() + (x.lengthScale != 1 ? tr(" × %1").arg(Units::formatDecimal(x.lengthScale, 3)) : QString())
                                  : tr("fixed, at the context");
        }, true);
        line(tr("Context"), [](const Scenario &x, const CapacityResult &) { return tr("%1 tokens").arg(Units::formatCount(x.contextTokens)); }, true);
        line(tr("Sessions asked (the charts)"), [](const Scenario &x, const CapacityResult &) { return Units::formatCount(x.sessions); }, true);
        line(tr("Retention cap"), [](const Scenario &x, const CapacityResult &) { return x.retainTokens ? tr("%1 tokens").arg(Units::formatCount(*x.retainTokens)) : tr("none"); }, true);
        line(tr("Risk"), [](const Scenario &x, const CapacityResult &) { return x.distribution ? Units::formatRisk(x.risk) : tr("none (fixed lengths)"); }, true);
        line(tr("Target sessions"), [](const Scenario &x, const CapacityResult &) { return x.targetSessions ? Units::formatCount(*x.targetSessions) : tr("none"); }, true);
        line(tr("Price per GPU-hour"), [](const Scenario &x, const CapacityResult &) { return money(x.effectivePrice()); }, true);
        p6 += QStringLiteral("<tr><td colspan=%1><i>%2</i></td></tr>").arg(all.size() + 1).arg(tr("Answers"));
        line(tr("Basis"), [](const Scenario &x, const CapacityResult &) { return basisOf(x); }, false);
        line(tr("KV bytes per token"), [](const Scenario &, const CapacityResult &y) { return Units::formatExactBytes(y.kvBytesPerToken); }, false);
        line(tr("KV budget per GPU"), [&fmt](const Scenario &, const CapacityResult &y) { return fmt(y.kvBudgetBytesPerGpu); }, false);
        line(tr("Sessions per TP group"), [](const Scenario &, const CapacityResult &y) { return Units::formatCount(y.distribution.sessionsAtRisk); }, false);
        line(tr("Sessions per GPU"), [](const Scenario &x, const CapacityResult &y) { return Units::formatDecimal(double(y.distribution.sessionsAtRisk) / x.tp, 1); }, false);
        line(tr("Money per month"), [](const Scenario &x, const CapacityResult &y) { return money(deploymentOf(x, y).perMonth); }, false);
        line(tr("Per session-hour"), [](const Scenario &x, const CapacityResult &y) {
            const auto v = deploymentOf(x, y).perSessionHour;
            return v ? Units::formatUsdPer(*v, tr("session-hour"), tr("session-hours")) : QStringLiteral("—");
        }, false);
        p6 += QStringLiteral("</table>");
        QStringList bases;
        for (const auto &c : all)
            bases << basisOf(c.second);
        bases.removeDuplicates();
        p6 += QStringLiteral("<p>%1 %2</p>").arg(bases.size() == 1 ? tr("Like with like: every column is %1.").arg(bases.first())
                                                                    : tr("<b>Not like with like</b>: the columns stand on different bases, so their session counts answer different questions."),
                                                  tr("Bold: differs from the first column. Charts below hold each column's sessions asked%1, share one scale and the colours of the memory chart.")
                                                      .arg(std::all_of(all.cbegin(), all.cend(), [&](const auto &c) { return c.second.sessions == s.sessions; })
                                                               ? tr(" (%1)").arg(Units::formatCount(s.sessions)) : QString()));
        qint64 top = 0;
        for (const CapacityResult &y : results)
            top = std::max(top, y.gpuMemoryBytes + std::max<qint64>(0, y.weightsBytesPerGpu + y.draftWeightsBytesPerGpu + y.loraBytesPerGpu + y.workspaceBytesPerGpu + y.kvBytesForSessionsPerGpu - y.gpuMemoryBytes));
        QVector<QChart *> charts;
        for (int i = 0; i < all.size(); ++i) {
            auto c = std::make_unique<MemoryChartView>();
            c->setPalette(paper);
            c->setResult(results.at(i), all.at(i).second.tp, u);
            c->setScaleTop(top);
            c->setLegendVisible(false);
            c->chart()->setTitle(all.at(i).first);
            charts << c->chart();
            compareCharts.push_back(std::move(c));
        }
        text(p6, true);
        blocks << Block{QString(), nullptr, 0.35, false, charts};
    }

    // Appendix: derivation, sources, assumptions, figures for scripts.
    // Numbered by hand in a two-column table: the derivation flows across pages in blocks, and each
    // block keeps its numbers.
    const QString a1Head = QStringLiteral("<h2>%1</h2>").arg(tr("Appendix A: the derivation, every number"));
    QString a1 = a1Head + QStringLiteral("<table cellspacing=2>");
    QStringList derivation = explainCapacity(s, r, u);
    if (s.distribution) // a sample trace by its name, not the folder of the build it was found in
        derivation.replaceInStrings(s.distribution->spec, describeSpec(s.distribution->spec));
    bool firstChunk = true;
    for (int i = 0; i < derivation.size(); ++i) {
        a1 += QStringLiteral("<tr><td align=right>%1.</td><td>%2</td></tr>").arg(i + 1).arg(esc(derivation.at(i)));
        if ((i + 1) % 14 == 0 && i + 1 < derivation.size()) { // blocks small enough to flow onto the next page
            text(a1 + QStringLiteral("</table>"), firstChunk);
            firstChunk = false;
            a1 = QStringLiteral("<table cellspacing=2>");
        }
    }
    a1 += QStringLiteral("</table>");
    for (const QString &f : r.fixes)
        a1 += QStringLiteral("<p>%1 %2</p>").arg(tr("Lever:"), esc(f));
    text(a1, firstChunk);
    QString a2 = QStringLiteral("<h2>%1</h2><table cellspacing=3>").arg(tr("Appendix B: sources"));
    a2 += row(tr("Model: %1").arg(esc(s.model.name)), tr("%1 (%2)").arg(esc(s.model.source), esc(s.model.sourceDate.isEmpty() ? tr("undated") : s.model.sourceDate)));
    a2 += row(tr("Card memory: %1").arg(esc(s.gpu.name)), esc(s.gpu.memorySource));
    if (s.gpu.priceUsdPerHour)
        a2 += row(tr("Price"), tr("%1 (%2)").arg(esc(s.gpu.priceSource), esc(s.gpu.priceDate.isEmpty() ? tr("undated") : s.gpu.priceDate)));
    if (s.distribution)
        a2 += row(tr("Session lengths"), esc(describeSpec(s.distribution->spec)));
    a2 += row(tr("Engine rule"), esc(r.budgetRule));
    a2 += QStringLiteral("</table>");
    text(a2);
    a2 = QStringLiteral("<h2>%1</h2><ul>").arg(tr("Appendix C: assumptions and units"));
    a2 += QStringLiteral("<li>%1</li>").arg(tr("GB = 10^9 bytes, GiB = 2^30 bytes; figures here in %1. A month is 730 hours.").arg(Units::gigaLabel(u)));
    a2 += QStringLiteral("<li>%1</li>").arg(tr("Workspace per GPU %1 (runtime reserve and activations).").arg(fmt(r.workspaceBytesPerGpu)));
    a2 += QStringLiteral("<li>%1</li>").arg(tr("Paged KV cache in blocks of %1 tokens%2.").arg(s.blockSize).arg(s.preallocate ? tr("; every session preallocates its maximum") : QString()));
    a2 += QStringLiteral("<li>%1</li>").arg(tr("A decode step takes the longer of reading the weights and the sessions' KV at %1 of peak bandwidth and its compute at %2 of dense BF16 TFLOPS.")
                                                .arg(Units::formatDecimal(s.bandwidthEfficiency, 2), Units::formatDecimal(s.computeUtilization, 2)));
    a2 += QStringLiteral("<li>%1</li>").arg(tr("Sessions are independent draws of the length distribution; the tail P(the sessions' KV exceeds the pool) is "
                                                   "computed with a bound on its error: directly for a few sessions, by tilted Fourier inversion on the "
                                                   "size lattice otherwise (the saddlepoint only brackets the count), and past the largest transform by the "
                                                   "smaller of two upper bounds, the exact convolution of the sizes rounded up and the Chernoff bound: "
                                                   "never above the exact count."));
    for (const QString &w : r.warnings)
        a2 += QStringLiteral("<li>%1</li>").arg(esc(w));
    a2 += QStringLiteral("</ul>");
    text(a2);
    QString a3 = QStringLiteral("<h2>%1</h2><p>%2</p><table cellspacing=2>")
                     .arg(tr("Appendix D: figures for scripts"), tr("The same figures as <tt>headroom plan --json</tt> gives them, under its field names, for scripts that check this report."));
    const QJsonObject json = r.toJson();
    for (const char *key : {"kv_bytes_per_token", "kv_bytes_per_token_per_gpu", "session_bytes", "weights_bytes_per_gpu", "kv_budget_bytes_per_gpu",
                            "max_sessions", "sessions_at_risk", "sessions_worst_case", "sessions_at_mean", "admission_limit",
                            "cost_per_session_hour_usd", "cost_per_million_tokens_usd", "gpus_needed", "fleet_cost_per_month_usd"}) {
        const QJsonValue v = json.value(QString::fromLatin1(key));
        // A figure plan --json leaves null is written as null, with what it waits for.
        const QString k = QString::fromLatin1(key);
        const QString why = k.contains(QLatin1String("cost")) && !price ? tr("null (no price per GPU-hour)")
                            : (k == QLatin1String("gpus_needed") || k.startsWith(QLatin1String("fleet"))) && !s.targetSessions ? tr("null (no target sessions)")
                                                                                                                             : tr("null");
        a3 += QStringLiteral("<tr><td><tt>%1</tt></td><td>%2</td></tr>").arg(k, v.isDouble() ? QString::number(v.toDouble(), 'f', 12).remove(QRegularExpression(QStringLiteral("\\.?0+$"))) : why);
    }
    a3 += QStringLiteral("</table>");
    text(a3);

    QPainter painter;
    if (!painter.begin(device)) {
        *error = tr("cannot paint the report (is the file writable?)");
        return false;
    }
    const QRectF body = QRectF(QPointF(0, 0), device->pageLayout().paintRectPixels(device->logicalDpiX()).size());
    const double header = body.height() * 0.04;
    const QRectF content(0, header * 1.5, body.width(), body.height() - header * 3);
    const double gap = content.height() * 0.015;
    const double dpi = device->logicalDpiX();
    // Lay the blocks out (layBlocks): text at its height, charts at their share of the page, fitted.
    std::vector<std::unique_ptr<QTextDocument>> docs;
    QVector<double> natural;
    for (const Block &b : blocks) {
        double h = 0;
        if (b.isChart()) {
            h = content.height() * b.share;
            docs.push_back(nullptr);
        } else {
            auto doc = std::make_unique<QTextDocument>();
            doc->documentLayout()->setPaintDevice(device);
            doc->setDefaultStyleSheet(QStringLiteral("h1 { font-size: 18pt; } h2 { font-size: 13pt; } h3 { font-size: 11pt; } td { padding-right: 12px; }"));
            doc->setHtml(b.html);
            doc->setTextWidth(content.width());
            h = doc->size().height();
            docs.push_back(std::move(doc));
        }
        natural << h;
    }
    const Laid laid = layBlocks(blocks, natural, content.height(), gap);
    const QVector<int> &pageOf = laid.page;
    const QVector<double> &topOf = laid.top, &heightOf = laid.height;
    const int pages = pageOf.isEmpty() ? 1 : pageOf.constLast() + 1;
    QFont small = painter.font();
    small.setPointSizeF(8);
    int painted = -1;
    for (int i = 0; i < blocks.size(); ++i) {
        while (painted < pageOf.at(i)) {
            if (painted >= 0)
                device->newPage();
            ++painted;
            painter.setFont(small);
            painter.setPen(Qt::darkGray);
            painter.drawText(QRectF(0, 0, body.width(), header), Qt::AlignLeft | Qt::AlignVCenter, title);
            painter.drawText(QRectF(0, 0, body.width(), header), Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("Headroom %1").arg(version));
            painter.drawText(QRectF(0, body.height() - header, body.width(), header), Qt::AlignCenter, tr("Page %1 of %2").arg(painted + 1).arg(pages));
            painter.setPen(Qt::black);
        }
        const Block &b = blocks.at(i);
        const QRectF target(content.left(), content.top() + topOf.at(i), content.width(), heightOf.at(i));
        if (b.chart) {
            renderChart(painter, b.chart, target, dpi);
        } else if (!b.row.isEmpty()) {
            for (int c = 0; c < b.row.size(); ++c)
                renderChart(painter, b.row.at(c),
                            QRectF(target.left() + target.width() * c / b.row.size(), target.top(), target.width() / b.row.size(), target.height()), dpi);
        } else {
            painter.save();
            painter.translate(target.topLeft());
            // As QTextDocument::drawContents, in the paper palette rather than the application's.
            QAbstractTextDocumentLayout::PaintContext ctx;
            ctx.palette = paper;
            ctx.clip = QRectF(0, 0, target.width(), target.height());
            painter.setClipRect(ctx.clip);
            docs.at(std::size_t(i))->documentLayout()->draw(&painter, ctx);
            painter.restore();
        }
    }
    painter.end();
    return true;
}

void ReportWriter::setUpPrinter(QPrinter *printer, QPageSize::PageSizeId pageSize)
{
    printer->setResolution(kDotsPerInch);
    printer->setFullPage(false);
    setUpPage(*printer, pageSize);
}

QPageSize::PageSizeId ReportWriter::defaultPageSize()
{
    return QLocale().measurementSystem() == QLocale::ImperialUSSystem ? QPageSize::Letter : QPageSize::A4;
}

bool ReportWriter::writePdf(const QString &path, const ReportInput &input, QPageSize::PageSizeId pageSize, QString *error,
                            const QVector<OutputTarget::Protected> &protect)
{
    // Atomic: the PDF goes to a temporary file that replaces `path` only when
    // complete, so a full disk or a failure leaves the previous file intact.
    try {
        OutputTarget::check(path, OutputTarget::Kind::Pdf, protect, QStringLiteral("file"));
    } catch (const InputError &e) {
        *error = e.message();
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    QPdfWriter writer(&file);
    writer.setResolution(kDotsPerInch);
    setUpPage(writer, pageSize);
    writer.setTitle(QStringLiteral("Headroom capacity report: %1").arg(input.name));
    writer.setCreator(QStringLiteral("Headroom %1").arg(QCoreApplication::applicationVersion()));
    QString why;
    if (!paint(&writer, input, &why)) {
        file.cancelWriting();
        *error = QStringLiteral("%1: %2").arg(path, why);
        return false;
    }
    if (!file.commit()) {
        *error = QStringLiteral("cannot write %1: %2 (the previous file is unchanged)").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace Headroom
