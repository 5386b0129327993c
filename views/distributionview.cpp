// SPDX-License-Identifier: GPL-3.0-or-later
#include "distributionview.h"
#include "core/filekind.h"

#include "chartstyle.h"
#include "distributionchartview.h"
#include "core/inputerror.h"
#include "core/inputranges.h"
#include "plan/capacity.h"
#include "plan/fleetrisk.h"
#include "planner.h"
#include "settings.h"
#include "throughputchartview.h"
#include "tokenspinbox.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMap>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTextDocument>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>

namespace Headroom {

namespace {
enum Source { Context = 0, Trace, LogNormal, Quantiles };
const double kQuantileP[4] = {0.5, 0.9, 0.99, 0.999};

// Tints `box` towards red with `problem` as its tooltip (as TokenSpinBox shows text it cannot
// read), or back to the inherited palette and the box's own tooltip when `problem` is empty.
void setRiskProblem(QComboBox *box, const QString &problem)
{
    if (box->accessibleDescription() == problem)
        return;
    if (box->property("headroomTip").isNull())
        box->setProperty("headroomTip", box->toolTip());
    box->setAccessibleDescription(problem);
    box->setToolTip(problem.isEmpty() ? box->property("headroomTip").toString() : problem);
    if (problem.isEmpty()) {
        box->setPalette(QPalette());
        return;
    }
    QPalette p = box->parentWidget() ? box->parentWidget()->palette() : QApplication::palette();
    p.setColor(QPalette::Base, ChartStyle::blend(p.color(QPalette::Base), QColor(0xd0, 0x30, 0x30), 0.3));
    box->setPalette(p);
}

TokenSpinBox *tokensSpin(qint64 value, const QString &field)
{
    auto *s = new TokenSpinBox;
    s->setRange(1, 1'000'000'000'000);
    s->setSingleStep(1000);
    s->setValue(value);
    s->setSuffix(QObject::tr(" tokens"));
    s->setFieldName(field);
    s->setAccessibleName(field);
    return s;
}
} // namespace

DistributionView::DistributionView(Planner *planner, QWidget *parent)
    : QWidget(parent), m_planner(planner)
{
    buildSourcePages();
    buildControls();
    QFormLayout *form = buildForm();
    m_figures = new QLabel;
    m_figures->setTextFormat(Qt::RichText);
    m_figures->setWordWrap(true);
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_useTraffic = new QPushButton(tr("Use the traffic's concurrency"));
    m_useTraffic->setToolTip(tr("Little's law: arrival rate × time in system, as the sessions to check"));
    m_useTraffic->setVisible(false);
    buildLayout(form, buildCharts());
    connectSignals();
    showScenario(m_planner->scenario());
    showResult(m_planner->result());
}

void DistributionView::buildSourcePages()
{
    m_source = new QComboBox;
    m_source->addItems({tr("Every session at the context"), tr("Trace (CSV or JSON lines)"), tr("Log-normal"), tr("Quantile table")});
    m_pages = new QStackedWidget;
    m_pages->addWidget(new QLabel(tr("Worst case: every session holds the context length.")));
    auto *tracePage = new QWidget;
    auto *traceLayout = new QHBoxLayout(tracePage);
    traceLayout->setContentsMargins(0, 0, 0, 0);
    m_traceLabel = new QLabel(tr("No trace loaded"));
    auto *importButton = new QPushButton(tr("&Import trace…"));
    traceLayout->addWidget(m_traceLabel, 1);
    traceLayout->addWidget(importButton);
    m_pages->addWidget(tracePage);
    connect(importButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Import trace"), QString(), tr("Request traces (*.csv *.jsonl *.txt);;All files (*)"));
        if (!path.isEmpty())
            importTrace(path);
    });
    auto *lnPage = new QWidget;
    auto *lnForm = new QFormLayout(lnPage);
    m_median = tokensSpin(2000, tr("Median"));
    m_p99 = tokensSpin(32000, tr("p99"));
    m_max = tokensSpin(131072, tr("Maximum"));
    lnForm->addRow(tr("Median"), m_median);
    lnForm->addRow(tr("p99"), m_p99);
    lnForm->addRow(tr("Maximum"), m_max);
    m_pages->addWidget(lnPage);
    auto *qPage = new QWidget;
    auto *qForm = new QFormLayout(qPage);
    const int defaults[5] = {2000, 8000, 32000, 64000, 131072};
    const char *names[5] = {"p50", "p90", "p99", "p99.9", "max"};
    for (int i = 0; i < 5; ++i) {
        m_quantile[i] = tokensSpin(defaults[i], QString::fromLatin1(names[i]));
        qForm->addRow(QString::fromLatin1(names[i]), m_quantile[i]);
    }
    m_pages->addWidget(qPage);
}

void DistributionView::buildControls()
{
    m_scale = new QDoubleSpinBox;
    m_scale->setRange(0.01, 1000);
    m_scale->setDecimals(2);
    m_scale->setValue(1.0);
    m_scale->setPrefix(QStringLiteral("× "));
    m_scale->setKeyboardTracking(false);
    m_capOn = new QCheckBox(tr("Cap retained conte&xt at"));
    m_cap = tokensSpin(32768, tr("Retention cap"));
    // The risk as every other figure writes it (Units::formatRisk), a choice of round ones or typed.
    m_risk = new QComboBox;
    m_risk->setEditable(true);
    m_risk->setInsertPolicy(QComboBox::NoInsert);
    m_risk->setAccessibleName(tr("Risk"));
    for (double r : {0.05, 0.01, 1e-3, 1e-4, 1e-5, 1e-6})
        m_risk->addItem(Units::formatRisk(r), r);
    m_risk->setToolTip(tr("Accepted probability that the sessions' KV cache overflows the pool: pick one, or type "
                          "1 in 5,000, 0.2%, 0.0002 or 2e-4"));
    // Whose risk it is: each replica's (--risk) or the whole fleet's (--fleet-risk).
    m_riskScope = new QComboBox;
    m_riskScope->setAccessibleName(tr("Risk of"));
    m_riskScope->addItem(tr("each replica"));
    m_riskScope->addItem(tr("the whole fleet"));
    m_riskScope->setToolTip(tr("Each replica (its TP × PP GPUs) at this risk, or the whole fleet: the chance that some replica "
                               "overflows, each replica's risk solved from it"));
}

QFormLayout *DistributionView::buildForm()
{
    auto *form = new QFormLayout;
    form->addRow(tr("Session &lengths"), m_source);
    form->addRow(QString(), m_pages);
    form->addRow(tr("Length scale"), m_scale);
    auto *capRow = new QHBoxLayout;
    capRow->addWidget(m_capOn);
    capRow->addWidget(m_cap, 1);
    form->addRow(tr("Retention"), capRow);
    auto *riskRow = new QHBoxLayout;
    riskRow->addWidget(m_risk, 1);
    riskRow->addWidget(m_riskScope);
    // A row of two: the label names its buddy itself (Alt+R), as addRow does for one widget.
    auto *riskLabel = new QLabel(tr("&Risk"));
    riskLabel->setBuddy(m_risk);
    form->addRow(riskLabel, riskRow);
    return form;
}

QWidget *DistributionView::buildCharts()
{
    m_chart = new DistributionChartView;
    m_throughput = new ThroughputChartView;
    auto *charts = new QTabWidget;
    charts->addTab(m_chart, tr("Distribution"));
    charts->addTab(m_throughput, tr("Throughput"));
    return charts;
}

void DistributionView::buildLayout(QFormLayout *form, QWidget *charts)
{
    // Inputs and figures side by side on top (one above the other when narrow,
    // see resizeEvent), scrolling when short; the charts take the full width below.
    auto *top = new QWidget;
    auto *topLayout = new QBoxLayout(QBoxLayout::LeftToRight, top);
    m_topLayout = topLayout;
    auto *inputs = new QVBoxLayout;
    inputs->addLayout(form);
    inputs->addStretch();
    auto *figures = new QVBoxLayout;
    figures->addWidget(m_figures);
    figures->addWidget(m_useTraffic);
    figures->addStretch();
    topLayout->addLayout(inputs, 3);
    topLayout->addLayout(figures, 4);
    auto *topScroll = new QScrollArea;
    topScroll->setWidget(top);
    topScroll->setWidgetResizable(true);
    topScroll->setFrameShape(QFrame::NoFrame);
    m_split = new QSplitter(Qt::Vertical);
    m_split->setObjectName(QStringLiteral("lengthsSplitter"));
    m_split->addWidget(topScroll);
    m_split->addWidget(charts);
    m_split->setStretchFactor(1, 1);
    m_split->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_split);
}

void DistributionView::connectSignals()
{
    connect(m_pages, &QStackedWidget::currentChanged, this, [this](int current) {
        // Size the stack to the page shown, not the tallest one.
        for (int i = 0; i < m_pages->count(); ++i)
            m_pages->widget(i)->setSizePolicy(QSizePolicy::Preferred, i == current ? QSizePolicy::Preferred : QSizePolicy::Ignored);
        m_pages->adjustSize();
    });
    Q_EMIT m_pages->currentChanged(0);
    connect(m_source, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_pages->setCurrentIndex(i);
        applySource();
    });
    for (TokenSpinBox *s : {m_median, m_p99, m_max, m_quantile[0], m_quantile[1], m_quantile[2], m_quantile[3], m_quantile[4]})
        connect(s, &TokenSpinBox::valueChanged, this, [this] { applySource(); });
    connect(m_scale, &QDoubleSpinBox::valueChanged, this, [this](double v) { m_planner->setLengthScale(v); });
    connect(m_capOn, &QCheckBox::toggled, this, [this](bool on) {
        m_planner->setRetainTokens(on ? std::optional<qint64>(m_cap->value()) : std::nullopt);
    });
    connect(m_cap, &TokenSpinBox::valueChanged, this, [this](qint64 v) {
        if (m_capOn->isChecked())
            m_planner->setRetainTokens(v);
    });
    connect(m_risk, &QComboBox::activated, this, [this](int i) { m_planner->setRisk(m_risk->itemData(i).toDouble(), m_riskScope->currentIndex() == 1); });
    // The risk shown moves to the other scope as it stands (one undo step).
    connect(m_riskScope, &QComboBox::activated, this, [this](int i) {
        const Scenario &s = m_planner->scenario();
        m_planner->setRisk(s.fleetRisk.value_or(s.risk), i == 1);
    });
    connect(m_risk->lineEdit(), &QLineEdit::editingFinished, this, &DistributionView::commitRisk);
    connect(m_chart, &DistributionChartView::handleDragged, this, [this](int i, qint64 tokens, bool finished) {
        if (i < 0 || i > 3)
            return;
        // Each drag of a handle is one undo step of its own.
        if (!m_handleDrag)
            m_planner->beginDrag();
        m_handleDrag = !finished;
        const QSignalBlocker block(m_quantile[i]);
        // A handle stays between its neighbours.
        const qint64 lo = i > 0 ? m_quantile[i - 1]->value() : 1, hi = m_quantile[i + 1]->value();
        m_quantile[i]->setValue(std::clamp(tokens, lo, hi));
        applySource(!finished);
    });
    connect(m_useTraffic, &QPushButton::clicked, this, [this] {
        if (const auto c = m_planner->result().distribution.concurrencyFromTraffic)
            m_planner->setSessions(std::max<qint64>(1, qint64(std::ceil(*c))));
    });
    connect(m_planner, &Planner::scenarioChanged, this, &DistributionView::showScenario);
    connect(m_planner, &Planner::resultChanged, this, [this](const CapacityResult &r) {
        if (isVisible())
            showResult(r);
        else
            m_resultStale = true;
    });
}

void DistributionView::showTrace(const QString &path, qint64 requests)
{
    m_traceLabel->setText(tr("%1: %2 requests").arg(QFileInfo(path).fileName(), Units::formatCount(requests)));
    // The source names the file's real format: a .jsonl trace is no "Trace (CSV)".
    QFile file(path);
    const QString format = file.open(QIODevice::ReadOnly) ? FileKind::traceFormat(FileKind::detect(file.read(64 * 1024))) : QString();
    m_source->setItemText(Trace, format.isEmpty() ? tr("Trace (CSV or JSON lines)") : tr("Trace (%1)").arg(format));
}

bool DistributionView::importTrace(const QString &path, QString *error)
{
    try {
        m_trace = LengthDistribution::fromTrace(path, tr("trace"));
        showTrace(path, m_trace->requests);
        const QSignalBlocker block(m_source);
        m_source->setCurrentIndex(Trace);
        m_pages->setCurrentIndex(Trace);
        applySource();
        return true;
    } catch (const InputError &e) {
        // The previous distribution stays in place.
        if (error)
            *error = e.text();
        else
            QMessageBox::warning(this, tr("Cannot import the trace"), e.text());
        return false;
    }
}

void DistributionView::applySource(bool dragging)
{
    try {
        switch (m_source->currentIndex()) {
        case Context:
            m_planner->setDistribution(std::nullopt);
            break;
        case Trace:
            if (m_trace)
                m_planner->setDistribution(m_trace);
            break;
        case LogNormal:
            m_planner->setDistribution(LengthDistribution::logNormal(m_median->value(), m_p99->value(), 0.99, m_max->value(), tr("log-normal")),
                                       dragging);
            break;
        case Quantiles: {
            QVector<QPair<double, qint64>> points;
            for (int i = 0; i < 4; ++i)
                points << qMakePair(kQuantileP[i], m_quantile[i]->value());
            m_planner->setDistribution(LengthDistribution::quantiles(points, m_quantile[4]->value(), tr("quantiles")), dragging);
            break;
        }
        }
    } catch (const InputError &e) {
        // Out of order: say so and keep the previous distribution.
        m_figures->setText(ChartStyle::errorHtml(e.text().toHtmlEscaped(), this));
    }
}

std::optional<double> DistributionView::riskFromText(const QString &input, QString *why) const
{
    const QString text = input.trimmed();
    const QString field = tr("Risk");
    for (int i = 0; i < m_risk->count(); ++i)
        if (text == m_risk->itemText(i))
            return m_risk->itemData(i).toDouble();
    try {
        const QLocale locale = Units::userLocale();
        return InputRanges::parseRisk(text, field, &locale);
    } catch (const InputError &e) {
        if (why)
            *why = e.text();
        return std::nullopt;
    }
}

void DistributionView::commitRisk()
{
    // The box shows the risk it holds rounded ("1 in 96 (1.04e-2)" for 0.0104): that text is never
    // read back, or each Enter or focus change would move the risk to its rounding (up, as often
    // as not: an optimistic count).
    const Scenario &now = m_planner->scenario();
    const bool ofFleet = m_riskScope->currentIndex() == 1;
    if (m_risk->currentText() == Units::formatRisk(now.fleetRisk.value_or(now.risk))) {
        setRiskProblem(m_risk, QString());
        return;
    }
    QString why;
    if (const std::optional<double> p = riskFromText(m_risk->currentText(), &why)) {
        setRiskProblem(m_risk, QString());
        m_planner->setRisk(*p, ofFleet);
        const Scenario &s = m_planner->scenario();
        m_risk->setEditText(Units::formatRisk(s.fleetRisk.value_or(s.risk))); // "1 in 5,000" reads "1 in 5,000 (2e-4)"
        return;
    }
    setRiskProblem(m_risk, why);
    if (m_risk->hasFocus())
        QToolTip::showText(m_risk->mapToGlobal(m_risk->rect().bottomLeft()), why, m_risk);
}

void DistributionView::showScenario(const Scenario &s)
{
    const QSignalBlocker b0(m_riskScope), b1(m_scale), b2(m_capOn), b3(m_cap), b4(m_risk), b5(m_source), b6(m_median), b7(m_p99), b8(m_max),
        b9(m_quantile[0]), b10(m_quantile[1]), b11(m_quantile[2]), b12(m_quantile[3]), b13(m_quantile[4]);
    // Mirror where the lengths come from (after undo, or a scenario opened from a file).
    int source = Context;
    if (s.distribution) {
        const LengthDistribution &d = *s.distribution;
        QMap<QString, qint64> args; // "median" -> 2000, from the spec the law was built from
        for (const QString &part : d.spec.section(QLatin1Char(':'), 1).split(QLatin1Char(','), Qt::SkipEmptyParts))
            args.insert(part.section(QLatin1Char('='), 0, 0), part.section(QLatin1Char('='), 1).toLongLong());
        switch (d.kind) {
        case LengthDistribution::Kind::Trace:
            source = Trace;
            if (!m_trace || *m_trace != d) {
                m_trace = d;
                showTrace(d.spec.mid(6), d.requests);
            }
            break;
        case LengthDistribution::Kind::LogNormal:
            source = LogNormal;
            m_median->setValue(args.value(QStringLiteral("median"), m_median->value()));
            m_p99->setValue(args.value(QStringLiteral("p99"), args.value(QStringLiteral("p90"), m_p99->value())));
            m_max->setValue(args.value(QStringLiteral("max"), m_max->value()));
            break;
        case LengthDistribution::Kind::Quantiles: {
            source = Quantiles;
            const char *names[5] = {"p50", "p90", "p99", "p99.9", "max"};
            for (int i = 0; i < 5; ++i)
                m_quantile[i]->setValue(args.value(QString::fromLatin1(names[i]), m_quantile[i]->value()));
            break;
        }
        case LengthDistribution::Kind::Fixed:
            break;
        }
    }
    m_source->setCurrentIndex(source);
    m_pages->setCurrentIndex(source);
    m_scale->setValue(s.lengthScale);
    m_capOn->setChecked(bool(s.retainTokens));
    if (s.retainTokens)
        m_cap->setValue(*s.retainTokens);
    // The risk as it is, an entry of the list when it is one (a file's 0.002 is not snapped to 1e-3).
    // (The fleet's when one is set: each replica's is then solved from it.)
    const double risk = s.fleetRisk.value_or(s.risk);
    m_riskScope->setCurrentIndex(s.fleetRisk ? 1 : 0);
    int entry = -1;
    for (int i = 0; i < m_risk->count(); ++i)
        if (std::abs(m_risk->itemData(i).toDouble() / risk - 1.0) < 1e-9)
            entry = i;
    m_risk->setCurrentIndex(entry);
    m_risk->setEditText(Units::formatRisk(risk));
    setRiskProblem(m_risk, QString());
    ChartInputs in{s.distribution, s.lengthScale, s.distribution ? 0 : s.contextTokens, s.retainTokens.value_or(0), {}};
    if (s.distribution && s.distribution->kind == LengthDistribution::Kind::Quantiles)
        for (int i = 0; i < 4; ++i)
            in.handles << qMakePair(kQuantileP[i], qint64(std::llround(m_quantile[i]->value() * s.lengthScale)));
    if (m_chartInputs == in)
        return;
    const LengthDistribution shown = s.distribution ? s.distribution->scaled(s.lengthScale, s.field(Input::LengthScale)) : LengthDistribution::fixed(s.contextTokens);
    m_chart->show(shown, in.cap, in.handles);
    m_chartInputs = std::move(in);
}

void DistributionView::showResult(const CapacityResult &r)
{
    m_resultStale = false;
    if (!r.ok) {
        m_figures->setText(ChartStyle::errorHtml(r.error.toHtmlEscaped(), this));
        return;
    }
    const Scenario &s = m_planner->scenario();
    const DistributionFigures &d = r.distribution;
    // Each count names the length it is for (one basis on screen).
    const qint64 longest = d.worstCaseTokens(s.retainTokens);
    QString text = tr("<table cellspacing=4>"
                      "<tr><td>Sessions, worst case (each at %1 tokens, the longest%2)</td><td><b>%3</b></td></tr>"
                      "<tr><td>Sessions at the mean (%4 tokens%10)</td><td><b>%5</b></td></tr>"
                      "<tr><td>Sessions at %6 risk (lengths as distributed)</td><td><b>%7</b></td></tr>"
                      "<tr><td>Admission limit (a margin of %8 of the KV budget)</td><td><b>%9</b></td></tr>")
                       .arg(Units::formatCount(longest), longest < d.maxTokens ? tr(", at the cap") : d.reservationWords(),
                            Units::formatCount(d.sessionsWorstCase), Units::formatCount(d.meanHeldTokens(s.retainTokens.has_value())),
                            Units::formatCount(d.sessionsAtMean), Units::formatRisk(d.replicaRisk), Units::formatCount(d.sessionsAtRisk),
                            QStringLiteral("%1%").arg(s.marginFraction * 100, 0, 'g', 3), Units::formatCount(d.admissionLimit))
                       .arg(s.retainTokens ? tr(", the mean of the lengths as capped") : d.reservationWords());
    text += tr("<tr><td>Overflow with %1 on one replica</td><td><b>%2</b></td></tr>")
                .arg(Units::plural(s.sessions, tr("session"), tr("sessions")), Units::formatRisk(d.overflowProbability));
    // Which risk the answer holds, each replica's or the fleet's, and what the other comes to.
    if (const QString fleet = FleetRisk::words(s, r); !fleet.isEmpty())
        text += tr("<tr><td>Overflow risk</td><td>%1</td></tr>").arg(fleet.toHtmlEscaped());
    // Under a cap the lengths' own mean is not the one above: each says which it is.
    text += (s.retainTokens ? tr("<tr><td>Lengths before the cap</td><td>mean %1, p50 %2, p99 %3, max %4 tokens</td></tr>")
                            : tr("<tr><td>Lengths</td><td>mean %1, p50 %2, p99 %3, max %4 tokens</td></tr>"))
                .arg(Units::formatCount(qint64(std::llround(d.meanTokens))), Units::formatCount(d.p50), Units::formatCount(d.p99),
                     Units::formatCount(d.maxTokens));
    if (s.retainTokens && m_planner->uncappedSessionsAtRisk()) {
        // The cap's effect said outright: what it buys per card, and what it costs the users.
        text += tr("<tr><td colspan=2><b>The cap: %1; what it costs, below</b></td></tr>")
                    .arg(capEffect(s, m_planner->result(), *m_planner->uncappedSessionsAtRisk()).toHtmlEscaped());
    }
    if (s.retainTokens)
        text += tr("<tr><td>Lost to the cap</td><td>%1</td></tr>").arg(d.truncatedShare > 0 ? historyLost(m_planner->result()).toHtmlEscaped() : tr("nothing"));
    if (d.hasPrompts)
        text += tr("<tr><td>Admitting by prompt</td><td>%1 sessions, risk %2 once grown</td></tr>")
                    .arg(Units::formatCount(d.admissionByPrompt), Units::formatRisk(d.riskAtGrownSize));
    if (d.itlMsAtRisk)
        text += tr("<tr><td>Decode at %1</td><td>%2 ms/token (90% of measured engines: %3 to %4 ms), %5 tokens/s per GPU (%6 to %7)</td></tr>")
                    .arg(Units::plural(d.sessionsAtRisk, tr("session"), tr("sessions")), QString::number(*d.itlMsAtRisk, 'f', 1), QString::number(d.itlAtRiskBand->low, 'f', 1),
                         QString::number(d.itlAtRiskBand->high, 'f', 1), Units::formatCount(qint64(std::llround(*d.tokensPerSecondPerGpu))),
                         Units::formatCount(qint64(std::llround(d.tokensPerSecondBand->low))),
                         Units::formatCount(qint64(std::llround(d.tokensPerSecondBand->high))));
    if (d.costPerMillionTokensUsd)
        text += tr("<tr><td>Cost</td><td>%1, %2</td></tr>")
                    .arg(r.costPerSessionHourUsd ? Units::formatUsdPer(*r.costPerSessionHourUsd, tr("session-hour")) : tr("—"),
                         Units::formatUsdPer(*d.costPerMillionTokensUsd, tr("million output tokens")));
    if (d.concurrencyFromTraffic)
        text += tr("<tr><td>Traffic (Little's law)</td><td>%1 req/s × time in system = %2 sessions at once</td></tr>")
                    .arg(QString::number(*d.arrivalRatePerSecond, 'f', 2), QString::number(*d.concurrencyFromTraffic, 'f', 1));
    m_figures->setText(text + QStringLiteral("</table>"));
    m_useTraffic->setVisible(bool(d.concurrencyFromTraffic));
    m_throughput->show(d);
}

void DistributionView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // Reflow rather than clip: side by side from 760 pixels, else stacked.
    m_topLayout->setDirection(width() >= 760 ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
}

void DistributionView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_resultStale)
        showResult(m_planner->result());
}

void DistributionView::saveLayout(Settings &settings) const
{
    settings.setSplitterState(m_split->objectName(), m_split->saveState());
}

void DistributionView::restoreLayout(const Settings &settings)
{
    m_split->restoreState(settings.splitterState(m_split->objectName()));
}

QString DistributionView::figuresText()
{
    if (m_resultStale)
        showResult(m_planner->result());
    QTextDocument doc;
    doc.setHtml(m_figures->text());
    return doc.toPlainText();
}

} // namespace Headroom
