// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"

#include <QPair>
#include <QTabWidget>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QTextBrowser;
class QTimer;
QT_END_NAMESPACE

namespace Headroom {

class Planner;

/// The why, right of the answer, in two tabs: the derivation with the numbers plugged in, and
/// the Sources (each value's publication and date; with the toggle, how each was checked).
/// Renders the Planner's results: the derivation follows an isolated change at once and a burst
/// of them (a drag) once it pauses, and only while it shows (a hidden one when it shows).
class WhyView : public QTabWidget
{
    Q_OBJECT
public:
    explicit WhyView(Planner *planner, QWidget *parent = nullptr);

    /// The derivation as shown (plain text), written out first when a drag has not paused yet.
    QString derivationText();
    /// The Sources tab as shown (plain text).
    QString sourcesText() const;

protected:
    /// Writes a hidden derivation out when it shows (the Sources tab, the presenter hid it).
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void showResult(const CapacityResult &result);
    /// Writes the derivation of the current result out when it is stale and shown (or `hidden` is
    /// true: read while hidden); a hidden one is written out when it shows.
    void showDerivation(bool hidden);
    /// The Sources tab: publications and dates; with the toggle, how each value was checked.
    void showSources();

    Planner *m_planner;
    QTextBrowser *m_derivation = nullptr;
    QTimer *m_derivationTimer = nullptr; ///< restarted by each result: a burst's last is written out once it pauses
    bool m_derivationStale = false;      ///< the derivation shown is not the current result's
    QPair<QString, QString> m_describedSpec; ///< a distribution spec and how the derivation names it (describeSpec)
    QTextBrowser *m_sources = nullptr;
    QCheckBox *m_sourceDetails = nullptr;
};

} // namespace Headroom
