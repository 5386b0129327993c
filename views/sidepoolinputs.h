// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QDoubleSpinBox;
class QSpinBox;
QT_END_NAMESPACE

namespace Headroom {

class Planner;

/// The side pools' inputs (issue 14), compact, under the main ones: images per
/// request (a vision model's encoder cache and image tokens; 0 = text only),
/// the share of sessions decoding at once, and host memory for KV per node (the
/// warm tier; 0 = none). Each change is one undo step through the Planner; the
/// boxes mirror the Planner's scenario, so undo moves them too. Alt+Q and Alt+Y
/// reach the images and host boxes (Alt+D and Alt+N belong to the derivation and the engine), Tab the share.
class SidePoolInputs : public QWidget
{
    Q_OBJECT
public:
    explicit SidePoolInputs(Planner *planner, QWidget *parent = nullptr);

    QSpinBox *imagesSpin() const { return m_images; }
    QDoubleSpinBox *decodingShareSpin() const { return m_share; }
    QDoubleSpinBox *hostMemorySpin() const { return m_host; }

private:
    void showScenario(const Scenario &s);

    Planner *m_planner;
    QSpinBox *m_images;
    QDoubleSpinBox *m_share;
    QDoubleSpinBox *m_host; ///< GB (10^9 B) per node
};

} // namespace Headroom
