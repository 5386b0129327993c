// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "kv/gpuspec.h"
#include "kv/modelshape.h"
#include "inputs/scenario.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QDoubleSpinBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QPushButton;
class QSlider;
QT_END_NAMESPACE

namespace Headroom {

class EngineSettingsDialog;
class Planner;
class SidePoolsPanel;
class TokenSpinBox;

/// The inputs, left of the answer: model, GPU and engine pickers; sliders
/// for context length (logarithmic), KV and weight precision, kv_heads,
/// sessions and TP, each with its value and unit beside it. Every change
/// goes to the Planner (one undo step; a drag merges into one); the panel
/// mirrors the Planner's scenario back, so undo moves the sliders too.
class InputPanel : public QWidget
{
    Q_OBJECT
public:
    /// models/gpus: the presets to offer (from the store), in display order.
    InputPanel(Planner *planner, QVector<ModelShape> models, QVector<GpuSpec> gpus, QWidget *parent = nullptr);

    /// Slider position (0..1000) for a context length, and back: 1,000 tokens
    /// at 0, the top at 1000, logarithmic between.
    int contextToPosition(qint64 tokens) const;
    qint64 positionToContext(int position) const;

    /// Offers these presets in the model and GPU pickers (after the preset
    /// manager changed them), keeping the current selection; a model or card
    /// the scenario uses but the lists lack stays offered, so the plan never
    /// changes under the user.
    void setPresets(QVector<ModelShape> models, QVector<GpuSpec> gpus);
    /// Offers `model` in the model picker (an imported config.json), replacing one with the same id.
    void addModel(const ModelShape &model);

    /// The least width the inputs need: every label above its field.
    int narrowestWidth() const;
    /// As narrow as narrowestWidth(): a narrower pane puts the labels above the fields.
    QSize minimumSizeHint() const override;

    QSlider *contextSlider() const { return m_contextSlider; }
    TokenSpinBox *contextSpin() const { return m_contextSpin; }
    QSlider *sessionsSlider() const { return m_sessionsSlider; }
    TokenSpinBox *sessionsSpin() const { return m_sessionsSpin; }
    QSlider *kvDtypeSlider() const { return m_kvDtypeSlider; }
    QSlider *kvHeadsSlider() const { return m_kvHeadsSlider; }
    QSlider *tpSlider() const { return m_tpSlider; }
    QComboBox *modelCombo() const { return m_model; }
    QComboBox *gpuCombo() const { return m_gpu; }
    QComboBox *engineCombo() const { return m_engine; }
    /// The "Settings..." button beside the engine picker, and the engine settings it opens
    /// (created on the first click; nullptr before).
    QPushButton *engineSettingsButton() const { return m_engineSettingsButton; }
    EngineSettingsDialog *engineSettings() const { return m_engineSettings; }
    /// The "Side pools" group: draft model and LoRA slots (issue #14).
    SidePoolsPanel *sidePools() const { return m_sidePools; }

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    /// The model, GPU and engine pickers (long names elide instead of widening the panel).
    void buildPickers();
    /// The sliders with their boxes and value labels: context (logarithmic), sessions, KV and
    /// weight precision, KV heads (with its reset) and TP.
    void buildSliders();
    /// The form: each input under its label, mnemonics unique in the window; then the side pools.
    void buildForm();
    /// Every input to its Planner setter (one undo step each; a drag's steps merge), and the
    /// Planner's scenario back to the inputs.
    void connectSignals();
    /// Labels beside the fields when the width allows, else above them.
    void reflow();
    /// The context note's height: the lines it wraps to at the context box's width.
    void fitContextNote();
    void sizeSliders();
    void showScenario(const Scenario &s);
    qint64 contextTop() const;
    QVector<int> kvHeadChoices() const;

    Planner *m_planner;
    QFormLayout *m_form = nullptr;
    QVector<ModelShape> m_models;
    QVector<GpuSpec> m_gpus;
    QComboBox *m_model;
    QComboBox *m_gpu;
    QComboBox *m_engine;
    QPushButton *m_engineSettingsButton;
    EngineSettingsDialog *m_engineSettings = nullptr;
    QSlider *m_contextSlider;
    TokenSpinBox *m_contextSpin;
    QSlider *m_sessionsSlider;
    TokenSpinBox *m_sessionsSpin;
    QSlider *m_kvDtypeSlider;
    QLabel *m_kvDtypeLabel;
    QSlider *m_weightsDtypeSlider;
    QLabel *m_weightsDtypeLabel;
    QSlider *m_kvHeadsSlider;
    QLabel *m_kvHeadsLabel;
    QPushButton *m_kvHeadsReset;
    QSlider *m_tpSlider;
    QLabel *m_tpLabel;
    QDoubleSpinBox *m_price; ///< dollars per GPU-hour: the card's published price, or the user's (--price)
    QLabel *m_contextNote;
    SidePoolsPanel *m_sidePools;
};

} // namespace Headroom
