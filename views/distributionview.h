// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"
#include "inputs/scenario.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QBoxLayout;
class QLabel;
class QPushButton;
class QSplitter;
class QStackedWidget;
QT_END_NAMESPACE

namespace Headroom {

class DistributionChartView;
class Planner;
class Settings;
class TokenSpinBox;
class ThroughputChartView;

/// The distribution editor: where session lengths come from (a fixed
/// context, a trace CSV, a log-normal, a quantile table with draggable
/// handles), the length scale, the retention cap and the accepted risk; the
/// chart of the distribution with the cap; and the three session counts
/// (worst case, at the mean, at the risk), the overflow probability, the
/// admission limit, throughput and fleet, updating as the user drags. Edits
/// go through the Planner; figures come from its result.
class DistributionView : public QWidget
{
    Q_OBJECT
public:
    explicit DistributionView(Planner *planner, QWidget *parent = nullptr);

    /// Imports a trace (CSV or JSON lines) as the distribution; false (with *error) when it cannot.
    bool importTrace(const QString &path, QString *error = nullptr);
    /// The figures as shown (plain text), for tests; brought up to date first (while the tab is
    /// hidden its figures wait for it to show).
    QString figuresText();
    DistributionChartView *chartView() const { return m_chart; }
    TokenSpinBox *quantileSpin(int i) const { return m_quantile[i]; }
    QComboBox *sourceCombo() const { return m_source; }
    TokenSpinBox *capSpin() const { return m_cap; }
    QCheckBox *capCheck() const { return m_capOn; }
    /// The accepted risk: a list in the form every figure is written ("1 in 100 (1e-2)") that
    /// also takes a typed risk (see riskFromText).
    QComboBox *riskCombo() const { return m_risk; }
    /// What the risk is of: entry 0 each replica (--risk), entry 1 the whole fleet (--fleet-risk).
    QComboBox *riskScopeCombo() const { return m_riskScope; }
    /// The risk a typed `text` says, or nothing with the reason in *why: one of the list's
    /// entries, "1 in N" (N a count as every token box reads it, what follows in parentheses
    /// ignored), a percentage ("2%") or a decimal ("0.002", "1e-5"), held to the risk's range
    /// (InputRanges, RealInput::Risk: 1e-6 to 0.5).
    std::optional<double> riskFromText(const QString &text, QString *why) const;
    /// The splitter between the inputs and the charts, to and from the settings.
    void saveLayout(Settings &settings) const;
    void restoreLayout(const Settings &settings);

protected:
    void resizeEvent(QResizeEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    /// The trace at `path` with its `requests` in the label, its format (FileKind) in the source picker.
    void showTrace(const QString &path, qint64 requests);
    /// Where the lengths come from (the source picker) and its pages: the context, a trace with
    /// its import button, a log-normal's three figures, a quantile table's five.
    void buildSourcePages();
    /// The length scale, the retention cap with its toggle, and the risk (a list, or typed).
    void buildControls();
    /// The inputs' form: lengths with their page, scale, retention and risk.
    QFormLayout *buildForm();
    /// The distribution and throughput charts, in two tabs.
    QWidget *buildCharts();
    /// Inputs (`form`) and figures side by side on top, scrolling when short, over the `charts`.
    void buildLayout(QFormLayout *form, QWidget *charts);
    /// Every input to its Planner setter (a handle drag is one undo step), and the Planner's
    /// scenario and results back to the view.
    void connectSignals();
    void showScenario(const Scenario &s);
    void showResult(const CapacityResult &r);
    void applySource(bool dragging = false);
    /// Sets the typed risk, or tints the box with the reason and keeps the last valid one.
    void commitRisk();

    Planner *m_planner;
    QComboBox *m_source;
    QStackedWidget *m_pages;
    QLabel *m_traceLabel;
    TokenSpinBox *m_median;
    TokenSpinBox *m_p99;
    TokenSpinBox *m_max;
    TokenSpinBox *m_quantile[5]; // p50, p90, p99, p99.9, max
    QDoubleSpinBox *m_scale;
    QCheckBox *m_capOn;
    TokenSpinBox *m_cap;
    QComboBox *m_risk;
    QComboBox *m_riskScope;
    QLabel *m_figures;
    QPushButton *m_useTraffic;
    DistributionChartView *m_chart;
    ThroughputChartView *m_throughput;
    std::optional<LengthDistribution> m_trace;
    QBoxLayout *m_topLayout;
    QSplitter *m_split;
    /// A result arrived while the tab was hidden: the figures and the throughput chart are
    /// filled in when it shows (a drag on the Memory tab relays no hidden text or chart).
    bool m_resultStale = false;
    bool m_handleDrag = false; // a handle drag under way (its steps merge into one undo step)
    /// What the distribution chart shows (the lengths as scaled, the cap, the handles): a
    /// scenario change that leaves them alone (the context or sessions dragged) redraws nothing.
    struct ChartInputs
    {
        std::optional<LengthDistribution> distribution;
        double lengthScale = 0;
        qint64 contextTokens = 0; ///< only when there is no distribution
        qint64 cap = 0;
        QVector<QPair<double, qint64>> handles;
        bool operator==(const ChartInputs &o) const
        {
            return distribution == o.distribution && lengthScale == o.lengthScale && contextTokens == o.contextTokens && cap == o.cap
                && handles == o.handles;
        }
    };
    std::optional<ChartInputs> m_chartInputs;
};

} // namespace Headroom
