// SPDX-License-Identifier: GPL-3.0-or-later
#include "reportwriter.h"

#include "plan/capacity.h"
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
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextDocument>
#include <QValueAxis>
#include <functional>

namespace Headroom {

namespace {

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

QChart *sessionsChart(const Scenario &s)
{
    auto *chart = new QChart;
    auto *series = new QLineSeries;
    series->setName(QCoreApplication::translate("ReportWriter", "sessions that fit per TP group"));
    qint64 top = 1;
    for (const auto &[context, sessions] : sessionsAcrossContexts(s)) {
        series->append(double(context), double(sessions));
        top = std::max(top, sessions);
    }
    chart->addSeries(series);
    auto *x = new QLogValueAxis;
    x->setBase(10);
    x->setLabelFormat(QStringLiteral("%.0f"));
    x->setTitleText(QCoreApplication::translate("ReportWriter", "context length, tokens (log scale)"));
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
    return chart;
}

} // namespace

bool ReportWriter::paint(QPagedPaintDevice *device, const ReportInput &in, QString *error)
{
    const Scenario &s = in.scenario;
    const CapacityResult &r = in.result;
    const UnitSystem u = in.units;
    auto fmt = [u](qint64 b) { return Units::formatBytes(b, u); };
    auto tr = [](const char *t) { return QCoreApplication::translate("ReportWriter", t); };
    if (!r.ok) {
        *error = r.error;
        return false;
    }
    const DistributionFigures &d = r.distribution;
    const QString version = QCoreApplication::applicationVersion();

    // Chart widgets own their charts; keep them alive while painting.
    // Against a distribution, the memory chart shows the recommended sessions at the mean length:
    // the pool as it stands on average at the risk-based count.
    MemoryChartView memory;
    if (s.distribution && d.sessionsAtRisk > 0) {
        Scenario atRisk = s;
        atRisk.sessions = d.sessionsAtRisk;
        atRisk.contextTokens = std::max<qint64>(1, qint64(std::llround(d.meanTokens)));
        atRisk.distribution.reset();
        memory.setResult(computeCapacity(atRisk), s.tp, u);
        memory.chart()->setTitle(tr("Memory per GPU: %1 sessions of the mean length (%2 tokens)")
                                     .arg(Units::formatCount(d.sessionsAtRisk), Units::formatCount(atRisk.contextTokens)));
    } else {
        memory.setResult(r, s.tp, u);
    }
    DistributionChartView distribution;
    distribution.show(s.distribution ? s.distribution->scaled(s.lengthScale) : LengthDistribution::fixed(r.reservedTokensPerSession),
                      s.retainTokens.value_or(0), {});
    ThroughputChartView throughput;
    throughput.show(d);
    std::unique_ptr<QChart> sessions(sessionsChart(s));

    QVector<Page> pages;
    // 1. Answer, key figures, inputs.
    QString p1 = QStringLiteral("<h1>%1</h1><p>%2 · %3</p>")
                     .arg(tr("Headroom capacity report"), esc(in.name.isEmpty() ? tr("Untitled scenario") : in.name),
                          QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    p1 += QStringLiteral("<h2>%1</h2><p><b>%2</b></p>").arg(tr("Answer"), esc(capacityVerdict(s, r, u)));
    p1 += QStringLiteral("<table cellspacing=3>");
    p1 += row(tr("KV bytes per token"), QStringLiteral("%1 (%2)").arg(Units::formatExactBytes(r.kvBytesPerToken), fmt(r.kvBytesPerToken)));
    p1 += row(tr("Bytes per session"), QStringLiteral("%1 (%2) at %3 tokens").arg(Units::formatExactBytes(r.sessionBytes), fmt(r.sessionBytes),
                                                                                 Units::formatCount(s.contextTokens)));
    p1 += row(tr("KV budget per GPU"), fmt(r.kvBudgetBytesPerGpu));
    p1 += row(tr("Sessions per TP group at the context"), Units::formatCount(r.maxSessions));
    p1 += row(tr("Sessions per TP group at the risk"), QStringLiteral("%1 (risk %2; worst case %3, at the mean %4)")
                                                           .arg(Units::formatCount(d.sessionsAtRisk), QString::number(s.risk, 'g', 3),
                                                                Units::formatCount(d.sessionsWorstCase), Units::formatCount(d.sessionsAtMean)));
    p1 += row(tr("Sessions per GPU"), QString::number(double(d.sessionsAtRisk) / s.tp, 'f', 2));
    p1 += row(tr("Cost per session-hour"), r.costPerSessionHourUsd ? Units::formatUsd(*r.costPerSessionHourUsd) : tr("set a price"));
    if (d.costPerMillionTokensUsd)
        p1 += row(tr("Cost per million output tokens"), Units::formatUsd(*d.costPerMillionTokensUsd));
    p1 += QStringLiteral("</table><h2>%1</h2><table cellspacing=3>").arg(tr("Inputs"));
    p1 += row(tr("Model"), QStringLiteral("%1 (%2 layers, %3 KV heads, head_dim %4, %5 parameters)<br><small>%6 (%7)</small>")
                               .arg(esc(s.model.name))
                               .arg(s.model.layers())
                               .arg(s.effectiveKvHeads())
                               .arg(s.model.headDim)
                               .arg(Units::formatCount(s.model.totalParams), esc(s.model.source), esc(s.model.sourceDate)));
    p1 += row(tr("GPU"), QStringLiteral("%1, %2 (%3)<br><small>%4</small>")
                             .arg(esc(s.gpu.name), fmt(r.gpuMemoryBytes), Units::formatExactBytes(r.gpuMemoryBytes), esc(s.gpu.memorySource)));
    p1 += row(tr("Tensor parallelism"), QString::number(s.tp));
    p1 += row(tr("Precisions"), tr("weights %1, KV cache %2").arg(Dtypes::name(r.weightsDtype), Dtypes::name(r.kvDtype)));
    p1 += row(tr("Engine rule"), esc(Engines::describe(s.engine)));
    p1 += row(tr("Sessions asked"), Units::formatCount(s.sessions));
    p1 += row(tr("Session lengths"), s.distribution ? esc(s.distribution->spec) + (s.lengthScale != 1 ? tr(", × %1").arg(s.lengthScale) : QString())
                                                    : tr("every session at %1 tokens").arg(Units::formatCount(s.contextTokens)));
    if (s.retainTokens)
        p1 += row(tr("Retention cap"), tr("%1 tokens").arg(Units::formatCount(*s.retainTokens)));
    const auto price = s.effectivePrice();
    p1 += row(tr("Price"), price ? tr("%1 per GPU-hour; %2 (%3)").arg(Units::formatUsd(*price), esc(s.gpu.priceSource), esc(s.gpu.priceDate))
                                 : tr("none published: set a price"));
    p1 += QStringLiteral("</table>");
    pages << Page{p1, {}, 0};

    // 2. Derivation and the memory chart.
    QString p2 = QStringLiteral("<h2>%1</h2><ol>").arg(tr("Derivation"));
    for (const QString &line : explainCapacity(s, r, u))
        p2 += QStringLiteral("<li>%1</li>").arg(esc(line));
    p2 += QStringLiteral("</ol>");
    for (const QString &f : r.fixes)
        p2 += QStringLiteral("<p>%1 %2</p>").arg(tr("Lever:"), esc(f));
    pages << Page{p2, {memory.chart()}, 0.5};

    // 3. Sessions against context; the distribution, cap and risk.
    QString p3 = QStringLiteral("<h2>%1</h2><table cellspacing=3>").arg(tr("Session lengths and risk"));
    p3 += row(tr("Lengths"), tr("mean %1, p50 %2, p90 %3, p99 %4, max %5 tokens")
                                 .arg(Units::formatCount(qint64(std::llround(d.meanTokens))), Units::formatCount(d.p50), Units::formatCount(d.p90),
                                      Units::formatCount(d.p99), Units::formatCount(d.maxTokens)));
    p3 += row(tr("Sessions: worst case / at the mean / at the risk"),
              QStringLiteral("%1 / %2 / %3").arg(Units::formatCount(d.sessionsWorstCase), Units::formatCount(d.sessionsAtMean), Units::formatCount(d.sessionsAtRisk)));
    p3 += row(tr("Admission limit"), tr("%1 (budget less a %2% margin: engines degrade near a full KV pool)")
                                         .arg(Units::formatCount(d.admissionLimit), QString::number(s.marginFraction * 100, 'g', 3)));
    p3 += row(tr("Overflow probability"), tr("%1 at %2").arg(QString::number(d.overflowProbability, 'g', 3), Units::plural(s.sessions, tr("session"), tr("sessions"))));
    if (s.retainTokens)
        p3 += row(tr("Cost of the cap"), tr("%1% of sessions lose history; %2 tokens dropped on average, p99 %3")
                                             .arg(QString::number(d.truncatedShare * 100, 'f', 2), QString::number(d.meanTokensDropped, 'f', 0),
                                                  Units::formatCount(d.p99TokensDropped)));
    if (d.hasPrompts)
        p3 += row(tr("Admission by prompt only"), tr("%1 sessions, overflow risk %2 once grown")
                                                      .arg(Units::formatCount(d.admissionByPrompt), QString::number(d.riskAtGrownSize, 'g', 3)));
    p3 += QStringLiteral("</table>");
    pages << Page{p3, {distribution.chart(), sessions.get()}, 0.72};

    // 4. Throughput, latency, cost, fleet; 5. assumptions and the plan figures.
    QString p4 = QStringLiteral("<h2>%1</h2><table cellspacing=3>").arg(tr("Throughput, latency and cost"));
    if (d.itlMsAtRisk)
        p4 += row(tr("Inter-token latency at the risk-based count"), tr("%1 ms").arg(QString::number(*d.itlMsAtRisk, 'f', 1)));
    if (d.tokensPerSecondPerGpu)
        p4 += row(tr("Tokens per second per GPU"), QString::number(*d.tokensPerSecondPerGpu, 'f', 0));
    if (d.ttftMs)
        p4 += row(tr("Time to first token (mean prompt)"), tr("%1 ms").arg(QString::number(*d.ttftMs, 'f', 1)));
    if (d.costPerMillionTokensUsd)
        p4 += row(tr("Cost per million output tokens"), Units::formatUsd(*d.costPerMillionTokensUsd));
    if (d.gpusNeeded)
        p4 += row(tr("Fleet"), tr("%1 GPUs for %2 concurrent sessions%3")
                                   .arg(Units::formatCount(*d.gpusNeeded), Units::formatCount(*s.targetSessions),
                                        d.fleetCostPerHourUsd ? tr(": %1 per hour, %2 per month (730 h)").arg(Units::formatUsd(*d.fleetCostPerHourUsd),
                                                                                                            Units::formatUsd(*d.fleetCostPerMonthUsd))
                                                              : QString()));
    p4 += QStringLiteral("</table>");
    pages << Page{p4, {throughput.chart()}, 0.5};
    QString p5 = QStringLiteral("<h2>%1</h2><ul>").arg(tr("Assumptions and units"));
    p5 += QStringLiteral("<li>%1</li>").arg(tr("GB = 10^9 bytes, GiB = 2^30 bytes; figures here in %1.").arg(Units::gigaLabel(u)));
    p5 += QStringLiteral("<li>%1</li>").arg(tr("Workspace per GPU %1 (runtime reserve and activations); budget rule: %2.").arg(fmt(r.workspaceBytesPerGpu), esc(r.budgetRule)));
    p5 += QStringLiteral("<li>%1</li>").arg(tr("Paged KV cache in blocks of %1 tokens%2.").arg(s.blockSize).arg(s.preallocate ? tr("; every session preallocates its maximum") : QString()));
    p5 += QStringLiteral("<li>%1</li>").arg(tr("Decode is bandwidth-bound at %1 of peak bandwidth; compute at %2 of dense BF16 TFLOPS.")
                                                .arg(s.bandwidthEfficiency).arg(s.computeUtilization));
    p5 += QStringLiteral("<li>%1</li>").arg(tr("Sessions are independent draws of the length distribution; the tail is exact (FFT) for small counts and a lattice saddlepoint approximation for large ones."));
    for (const QString &w : r.warnings)
        p5 += QStringLiteral("<li>%1</li>").arg(esc(w));
    p5 += QStringLiteral("</ul><h2>%1</h2><table cellspacing=2>").arg(tr("Figures as headroom plan --json gives them"));
    const QJsonObject json = r.toJson();
    for (const char *key : {"kv_bytes_per_token", "kv_bytes_per_token_per_gpu", "session_bytes", "weights_bytes_per_gpu", "kv_budget_bytes_per_gpu",
                            "max_sessions", "sessions_at_risk", "sessions_worst_case", "sessions_at_mean", "admission_limit",
                            "cost_per_session_hour_usd", "cost_per_million_tokens_usd", "gpus_needed"}) {
        const QJsonValue v = json.value(QString::fromLatin1(key));
        p5 += row(QString::fromLatin1(key), v.isDouble() ? QString::number(v.toDouble(), 'g', 15) : tr("n/a"));
    }
    p5 += QStringLiteral("</table>");
    pages << Page{p5, {}, 0};

    // 6. Comparison.
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
        auto line = [&](const QString &label, const std::function<QString(const Scenario &, const CapacityResult &)> &value) {
            p6 += QStringLiteral("<tr><td>%1</td>").arg(label);
            const QString first = value(all.first().second, results.first());
            for (int i = 0; i < all.size(); ++i) {
                const QString v = value(all.at(i).second, results.at(i));
                p6 += v == first || i == 0 ? QStringLiteral("<td>%1</td>").arg(esc(v)) : QStringLiteral("<td><b>%1</b></td>").arg(esc(v));
            }
            p6 += QStringLiteral("</tr>");
        };
        line(tr("Model / GPU"), [](const Scenario &x, const CapacityResult &) -> QString { return x.model.name + QStringLiteral(" / ") + x.gpu.name; });
        line(tr("TP"), [](const Scenario &x, const CapacityResult &) -> QString { return QString::number(x.tp); });
        line(tr("KV precision"), [](const Scenario &, const CapacityResult &y) -> QString { return Dtypes::name(y.kvDtype); });
        line(tr("KV bytes per token"), [](const Scenario &, const CapacityResult &y) -> QString { return Units::formatExactBytes(y.kvBytesPerToken); });
        line(tr("KV budget per GPU"), [&fmt](const Scenario &, const CapacityResult &y) -> QString { return fmt(y.kvBudgetBytesPerGpu); });
        line(tr("Sessions at the risk"), [](const Scenario &, const CapacityResult &y) -> QString { return Units::formatCount(y.distribution.sessionsAtRisk); });
        line(tr("Cost per session-hour"), [](const Scenario &, const CapacityResult &y) -> QString {
            return y.costPerSessionHourUsd ? Units::formatUsd(*y.costPerSessionHourUsd) : QStringLiteral("—");
        });
        p6 += QStringLiteral("</table><p>%1</p>").arg(tr("Bold: differs from the first column. Charts below share one scale and the colours of the memory chart."));
        qint64 top = 0;
        for (const CapacityResult &y : results)
            top = std::max(top, y.gpuMemoryBytes + std::max<qint64>(0, y.weightsBytesPerGpu + y.workspaceBytesPerGpu + y.kvBytesForSessionsPerGpu - y.gpuMemoryBytes));
        for (int i = 0; i < all.size(); ++i) {
            auto chart = std::make_unique<MemoryChartView>();
            chart->setResult(results.at(i), all.at(i).second.tp, u);
            chart->setScaleTop(top);
            chart->setLegendVisible(false);
            chart->chart()->setTitle(all.at(i).first);
            compareCharts.push_back(std::move(chart));
        }
        QVector<QChart *> charts;
        for (const auto &c : compareCharts)
            charts << c->chart();
        pages << Page{p6, charts, 0.45};
    }

    QPainter painter;
    if (!painter.begin(device)) {
        *error = QCoreApplication::translate("ReportWriter", "cannot paint the report (is the file writable?)");
        return false;
    }
    const QRectF body = QRectF(QPointF(0, 0), device->pageLayout().paintRectPixels(device->logicalDpiX()).size());
    const double header = body.height() * 0.04;
    QFont small = painter.font();
    small.setPointSizeF(8);
    for (int i = 0; i < pages.size(); ++i) {
        if (i > 0)
            device->newPage();
        painter.setFont(small);
        painter.setPen(Qt::darkGray);
        painter.drawText(QRectF(0, 0, body.width(), header), Qt::AlignLeft | Qt::AlignVCenter,
                         in.name.isEmpty() ? tr("Untitled scenario") : in.name);
        painter.drawText(QRectF(0, 0, body.width(), header), Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("Headroom %1").arg(version));
        painter.drawText(QRectF(0, body.height() - header, body.width(), header), Qt::AlignCenter,
                         QCoreApplication::translate("ReportWriter", "Page %1 of %2").arg(i + 1).arg(pages.size()));
        painter.setPen(Qt::black);
        const QRectF content(0, header * 1.5, body.width(), body.height() - header * 3);
        QTextDocument doc;
        doc.documentLayout()->setPaintDevice(device);
        doc.setDefaultStyleSheet(QStringLiteral("h1 { font-size: 18pt; } h2 { font-size: 13pt; } td { padding-right: 12px; }"));
        doc.setHtml(pages.at(i).html);
        doc.setTextWidth(content.width());
        const QVector<QChart *> &charts = pages.at(i).charts;
        const bool isCompare = !in.comparisons.isEmpty() && i == pages.size() - 1;
        const double chartHeight = charts.isEmpty() ? 0 : content.height() * pages.at(i).chartShare;
        painter.save();
        painter.translate(content.topLeft());
        doc.drawContents(&painter, QRectF(0, 0, content.width(), content.height() - chartHeight));
        painter.restore();
        const QRectF chartRect(content.left(), content.bottom() - chartHeight, content.width(), chartHeight);
        const double dpi = device->logicalDpiX();
        for (int c = 0; c < charts.size(); ++c) {
            // Comparison charts side by side (one scale); other pages stack theirs.
            const QRectF target = isCompare
                ? QRectF(chartRect.left() + chartRect.width() * c / charts.size(), chartRect.top(), chartRect.width() / charts.size(), chartRect.height())
                : QRectF(chartRect.left(), chartRect.top() + chartRect.height() * c / charts.size(), chartRect.width(), chartRect.height() / charts.size());
            renderChart(painter, charts.at(c), target, dpi);
        }
    }
    painter.end();
    return true;
}

bool ReportWriter::writePdf(const QString &path, const ReportInput &input, QPageSize::PageSizeId pageSize, QString *error)
{
    // Atomic: the PDF goes to a temporary file that replaces `path` only when
    // complete, so a full disk or a failure leaves the previous file intact.
    const QFileInfo target(path);
    if (target.exists() && !target.isFile()) {
        *error = QStringLiteral("%1 is not a regular file: refusing to replace it").arg(path);
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    QPdfWriter writer(&file);
    writer.setPageSize(QPageSize(pageSize));
    writer.setPageMargins(QMarginsF(18, 18, 18, 18), QPageLayout::Millimeter);
    writer.setResolution(144);
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
