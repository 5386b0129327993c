// SPDX-License-Identifier: GPL-3.0-or-later
#include "whyview.h"

#include "planner.h"
#include "shownhtml.h"
#include "core/citation.h"
#include "io/sampletraces.h"
#include "plan/capacity.h"

#include <QCheckBox>
#include <QEvent>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

namespace Headroom {

namespace {
QString html(const QString &s)
{
    return s.toHtmlEscaped();
}
} // namespace

WhyView::WhyView(Planner *planner, QWidget *parent)
    : QTabWidget(parent), m_planner(planner)
{
    m_derivation = new QTextBrowser;
    m_derivation->setAccessibleName(tr("Derivation"));
    m_derivation->installEventFilter(this);
    m_derivationTimer = new QTimer(this);
    m_derivationTimer->setSingleShot(true);
    m_derivationTimer->setInterval(150); // as the advice: a drag writes it out once it pauses
    connect(m_derivationTimer, &QTimer::timeout, this, [this] { showDerivation(false); });
    m_sources = new QTextBrowser;
    m_sources->setOpenExternalLinks(true);
    m_sourceDetails = new QCheckBox(tr("Show how each v&alue was checked"));
    connect(m_sourceDetails, &QCheckBox::toggled, this, &WhyView::showSources);
    auto *sourcesPage = new QWidget;
    auto *sourcesLayout = new QVBoxLayout(sourcesPage);
    sourcesLayout->setContentsMargins(0, 0, 0, 0);
    sourcesLayout->addWidget(m_sources, 1);
    sourcesLayout->addWidget(m_sourceDetails);
    addTab(m_derivation, tr("&Derivation"));
    addTab(sourcesPage, tr("S&ources"));
    setMinimumWidth(220);
    connect(m_planner, &Planner::resultChanged, this, &WhyView::showResult);
    showResult(m_planner->result());
}

bool WhyView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_derivation && event->type() == QEvent::Show)
        showDerivation(false); // a hidden derivation (the Sources tab, the presenter) is written out when shown
    return QTabWidget::eventFilter(watched, event);
}

void WhyView::showResult(const CapacityResult &r)
{
    if (!r.ok) {
        m_derivationTimer->stop();
        m_derivationStale = false;
        m_derivation->setPlainText(r.error);
        ShownHtml::forget(m_derivation); // the next answer is set again
        return;
    }
    // The derivation (tens of lines laid out and painted: more than the chart costs) follows an
    // isolated change at once and a burst of them (a drag) once it pauses, never holding a step's paint.
    m_derivationStale = true;
    const bool burst = m_derivationTimer->isActive();
    m_derivationTimer->start();
    if (!burst)
        showDerivation(false);
    showSources();
}

void WhyView::showDerivation(bool hidden)
{
    if (!m_derivationStale || !(hidden || m_derivation->isVisible()))
        return;
    m_derivationStale = false;
    const Scenario &s = m_planner->scenario();
    QStringList derivation = explainCapacity(s, m_planner->result(), m_planner->units());
    if (s.distribution) { // a sample trace by its name, not the folder of the build it was found in
        if (m_describedSpec.first != s.distribution->spec) // looked up once per trace, not on every step of a drag
            m_describedSpec = {s.distribution->spec, describeSpec(s.distribution->spec)};
        derivation.replaceInStrings(m_describedSpec.first, m_describedSpec.second);
    }
    ShownHtml::showList(m_derivation, derivation);
}

void WhyView::showSources()
{
    const Scenario &s = m_planner->scenario();
    const CapacityResult &r = m_planner->result();
    // Each value names its publication and date; how it was checked goes under the toggle.
    const bool details = m_sourceDetails->isChecked();
    auto cite = [details](const QString &text) { return html(details ? text : Citation::publication(text)); };
    ShownHtml::setHtmlOnce(m_sources, tr("<h3>%1</h3><p>%2 (%3)</p><p>Parameters: %4 published, %11 counted from the config's shapes; weights: %5.</p>"
                          "<h3>%6</h3><p>Memory: %7 — %8</p><p>%9</p><p>Price: %10</p>")
                           .arg(html(s.model.name), cite(s.model.source), html(s.model.sourceDate),
                                Units::formatCount(s.model.totalParams), html(r.weightsBasis), html(s.gpu.name),
                                Units::formatExactBytes(s.gpu.memoryBytes), cite(s.gpu.memorySource),
                                cite(s.gpu.source) + (s.gpu.sourceDate.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(html(s.gpu.sourceDate))),
                                s.gpu.priceUsdPerHour ? QStringLiteral("%1, %2 (%3)")
                                                              .arg(Units::formatUsdPer(*s.gpu.priceUsdPerHour, tr("GPU-hour")),
                                                                   cite(s.gpu.priceSource), html(s.gpu.priceDate))
                                                      : tr("none published: set a price"))
                           .arg(Units::formatCount(s.model.derivedParams)));
}

QString WhyView::derivationText()
{
    showDerivation(true); // what it shows once written out
    return m_derivation->toPlainText();
}

QString WhyView::sourcesText() const
{
    return m_sources->toPlainText();
}

} // namespace Headroom
