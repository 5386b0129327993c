// SPDX-License-Identifier: GPL-3.0-or-later
#include "sidepoolspanel.h"
#include "pickerlabels.h"
#include "planner.h"
#include "core/inputerror.h"
#include "core/inputranges.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>

namespace Headroom {

namespace {
// A spin box over one range rule; `floor` raises the rule's 0 ("off") where the check box says off.
QSpinBox *countSpin(CountInput input, int floor, const QString &name)
{
    const CountRange &r = InputRanges::of(input);
    auto *s = new QSpinBox;
    s->setRange(std::max<int>(int(r.low), floor), int(r.high));
    s->setAccessibleName(name);
    s->setKeyboardTracking(false); // one undo step per entered value
    return s;
}

// The suffix in the singular at 1 and the plural otherwise ("1 layer", "2 layers").
void countSuffix(QSpinBox *s, const QString &one, const QString &many)
{
    const auto update = [s, one, many](int v) { s->setSuffix(v == 1 ? one : many); };
    QObject::connect(s, &QSpinBox::valueChanged, s, update);
    update(s->value());
}

} // namespace

SidePoolsPanel::SidePoolsPanel(Planner *planner, QVector<ModelShape> models, QWidget *parent)
    : QGroupBox(tr("Side pools"), parent), m_planner(planner), m_models(std::move(models))
{
    m_draftOn = new QCheckBox(tr("Draft"));
    m_draftOn->setToolTip(tr("Speculative decoding: a draft model's weights and KV, and lookahead slots per session"));
    m_draft = new QComboBox;
    m_draft->setAccessibleName(tr("Draft model"));
    m_draft->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_draft->setMinimumContentsLength(10);
    m_draft->addItem(tr("MTP / EAGLE layers"), QString());
    addPickerItems(m_draft, m_models);
    m_layers = countSpin(CountInput::DraftLayers, 1, tr("MTP / EAGLE layers"));
    countSuffix(m_layers, tr(" layer"), tr(" layers"));
    m_tokens = countSpin(CountInput::SpeculativeTokens, 1, tr("Speculative tokens per step"));
    m_tokens->setPrefix(tr("K "));
    m_tokens->setValue(4);
    m_loraOn = new QCheckBox(tr("LoRA"));
    m_loraOn->setToolTip(tr("LoRA adapter slots resident on the card (vLLM --max-loras, --max-lora-rank)"));
    m_loras = countSpin(CountInput::MaxLoras, 1, tr("LoRA slots"));
    countSuffix(m_loras, tr(" slot"), tr(" slots"));
    m_loras->setValue(4);
    m_rank = countSpin(CountInput::MaxLoraRank, 1, tr("LoRA rank"));
    m_rank->setPrefix(tr("rank "));
    m_rank->setValue(16);
    m_modules = new QLineEdit(LoraSlots::allModules().join(QLatin1Char(',')));
    m_modules->setAccessibleName(tr("LoRA modules"));
    m_modules->setToolTip(tr("The adapted linear layers: a comma list of q, k, v, o, gate, up, down, or all"));
    m_note = new QLabel;
    m_note->setWordWrap(true);
    m_note->hide();

    auto *form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // Narrow rows (a laptop's 1280 x 720 at the default font): a label goes above a field too long for beside it.
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(m_draftOn, m_draft);
    form->addRow(QString(), m_layers);
    form->addRow(QString(), m_tokens);
    form->addRow(m_loraOn, m_loras);
    form->addRow(QString(), m_rank);
    auto *modules = new QLabel(tr("Modules"));
    modules->setBuddy(m_modules);
    form->addRow(modules, m_modules);
    form->addRow(m_note);

    connect(m_draftOn, &QCheckBox::toggled, this, &SidePoolsPanel::applySpeculative);
    connect(m_draft, &QComboBox::currentIndexChanged, this, &SidePoolsPanel::applySpeculative);
    connect(m_layers, &QSpinBox::valueChanged, this, &SidePoolsPanel::applySpeculative);
    connect(m_tokens, &QSpinBox::valueChanged, this, &SidePoolsPanel::applySpeculative);
    connect(m_loraOn, &QCheckBox::toggled, this, &SidePoolsPanel::applyLora);
    connect(m_loras, &QSpinBox::valueChanged, this, &SidePoolsPanel::applyLora);
    connect(m_rank, &QSpinBox::valueChanged, this, &SidePoolsPanel::applyLora);
    connect(m_modules, &QLineEdit::editingFinished, this, &SidePoolsPanel::applyLora);
    connect(m_planner, &Planner::scenarioChanged, this, &SidePoolsPanel::showScenario);
    showScenario(m_planner->scenario());
}

SpeculativeDecoding SidePoolsPanel::speculativeFromWidgets() const
{
    SpeculativeDecoding sd;
    if (!m_draftOn->isChecked())
        return sd;
    sd.speculativeTokens = m_tokens->value();
    const int i = m_draft->currentIndex() - 1;
    if (i >= 0 && i < m_models.size())
        sd.draftModel = m_models.at(i);
    else
        sd.draftLayers = m_layers->value();
    return sd;
}

LoraSlots SidePoolsPanel::loraFromWidgets() const
{
    LoraSlots l;
    if (!m_loraOn->isChecked())
        return l;
    l.maxLoras = m_loras->value();
    l.maxRank = m_rank->value();
    l.modules = LoraSlots::parseModules(m_modules->text(), tr("LoRA modules"));
    if (l.modules == LoraSlots::allModules())
        l.modules.clear();
    return l;
}

void SidePoolsPanel::applySpeculative()
{
    Scenario next = m_planner->scenario();
    next.speculative = speculativeFromWidgets();
    m_layers->setVisible(m_draft->currentIndex() == 0);
    if (next.speculative != m_planner->scenario().speculative)
        m_planner->edit(next, ScenarioCommand::Other, tr("Change speculative decoding"));
}

void SidePoolsPanel::applyLora()
{
    Scenario next = m_planner->scenario();
    try {
        next.lora = loraFromWidgets();
    } catch (const InputError &e) {
        m_note->setText(e.text());
        m_note->show();
        return;
    }
    m_note->hide();
    if (next.lora != m_planner->scenario().lora)
        m_planner->edit(next, ScenarioCommand::Other, tr("Change LoRA slots"));
}

void SidePoolsPanel::showScenario(const Scenario &s)
{
    const QSignalBlocker b1(m_draftOn), b2(m_draft), b3(m_layers), b4(m_tokens), b5(m_loraOn), b6(m_loras), b7(m_rank);
    const SpeculativeDecoding &sd = s.speculative;
    m_draftOn->setChecked(sd.on());
    if (sd.draftModel) {
        int i = m_draft->findData(sd.draftModel->id);
        if (i < 0) { // a draft from a file or config.json: offer it
            m_models.append(*sd.draftModel);
            m_draft->addItem(sd.draftModel->name, sd.draftModel->id);
            i = m_draft->count() - 1;
        }
        m_draft->setCurrentIndex(i);
    } else if (sd.draftLayers > 0) {
        m_draft->setCurrentIndex(0);
        m_layers->setValue(sd.draftLayers);
    }
    if (sd.speculativeTokens > 0)
        m_tokens->setValue(sd.speculativeTokens);
    m_layers->setVisible(m_draft->currentIndex() == 0);
    for (QWidget *w : {static_cast<QWidget *>(m_draft), static_cast<QWidget *>(m_layers), static_cast<QWidget *>(m_tokens)})
        w->setEnabled(sd.on());
    const LoraSlots &l = s.lora;
    m_loraOn->setChecked(l.on());
    if (l.on()) {
        m_loras->setValue(l.maxLoras);
        m_rank->setValue(l.maxRank);
        m_modules->setText(l.effectiveModules().join(QLatin1Char(',')));
    }
    for (QWidget *w : {static_cast<QWidget *>(m_loras), static_cast<QWidget *>(m_rank), static_cast<QWidget *>(m_modules)})
        w->setEnabled(l.on());
}

} // namespace Headroom
