// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "kv/modelshape.h"
#include "inputs/scenario.h"

#include <QGroupBox>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
QT_END_NAMESPACE

namespace Headroom {

class Planner;

/// The "Side pools" group of the input panel (issue #14): speculative
/// decoding (a draft preset or MTP / EAGLE layers of the target's shape, and
/// the tokens proposed per step) and LoRA slots (slots, rank, modules), each
/// behind its own check box, off by default. Every change is one undo step
/// through the Planner; the group mirrors the Planner's scenario back.
/// Spin ranges are the range rules of core/inputranges.h.
class SidePoolsPanel : public QGroupBox
{
    Q_OBJECT
public:
    /// models: the presets a draft can be (the same list as the model picker).
    SidePoolsPanel(Planner *planner, QVector<ModelShape> models, QWidget *parent = nullptr);

    QCheckBox *draftCheck() const { return m_draftOn; }
    QComboBox *draftCombo() const { return m_draft; }
    QSpinBox *speculativeTokensSpin() const { return m_tokens; }
    QCheckBox *loraCheck() const { return m_loraOn; }
    QSpinBox *lorasSpin() const { return m_loras; }
    QSpinBox *rankSpin() const { return m_rank; }
    QLineEdit *modulesEdit() const { return m_modules; }

private:
    void showScenario(const Scenario &s);
    SpeculativeDecoding speculativeFromWidgets() const;
    LoraSlots loraFromWidgets() const;
    void applySpeculative();
    void applyLora();

    Planner *m_planner;
    QVector<ModelShape> m_models;
    QCheckBox *m_draftOn;
    QComboBox *m_draft;
    QSpinBox *m_layers;
    QSpinBox *m_tokens;
    QCheckBox *m_loraOn;
    QSpinBox *m_loras;
    QSpinBox *m_rank;
    QLineEdit *m_modules;
    QLabel *m_note;
};

} // namespace Headroom
