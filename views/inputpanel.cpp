// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputpanel.h"
#include "enginesettingsdialog.h"
#include "pickerlabels.h"
#include "sidepoolinputs.h"
#include "planner.h"
#include "sidepoolspanel.h"
#include "tokenspinbox.h"
#include "core/inputranges.h"
#include "engines/enginerule.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QStyle>
#include <QAbstractSlider>
#include <algorithm>
#include <cmath>

namespace Headroom {

namespace {
const int kTpChoices[] = {1, 2, 4, 8};
constexpr qint64 kContextBottom = 1000;

QSlider *makeSlider(int maximum, const QString &name)
{
    auto *s = new QSlider(Qt::Horizontal);
    s->setRange(0, maximum);
    s->setPageStep(1);
    s->setTickPosition(QSlider::TicksBelow);
    s->setAccessibleName(name);
    s->setFocusPolicy(Qt::StrongFocus);
    return s;
}

QWidget *row(QWidget *a, QWidget *b, QWidget *c = nullptr)
{
    auto *w = new QWidget;
    auto *l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(a, 1);
    l->addWidget(b);
    if (c)
        l->addWidget(c);
    return w;
}

// A fixed width keeps the slider still while its label changes; a long
// label ("nvfp4 · 9 B per 16 values") wraps instead of being clipped.
void sizeValueLabel(QLabel *l)
{
    l->setFixedWidth(l->fontMetrics().horizontalAdvance(QStringLiteral("nvfp4 · 9 B per 16")));
}

QLabel *valueLabel()
{
    auto *l = new QLabel;
    l->setWordWrap(true);
    sizeValueLabel(l);
    return l;
}

// A form label whose mnemonic moves focus to `buddy` (not to the row around it).
QLabel *buddyLabel(const QString &text, QWidget *buddy)
{
    auto *l = new QLabel(text);
    l->setBuddy(buddy);
    return l;
}
} // namespace

InputPanel::InputPanel(Planner *planner, QVector<ModelShape> models, QVector<GpuSpec> gpus, QWidget *parent)
    : QWidget(parent), m_planner(planner), m_models(std::move(models)), m_gpus(std::move(gpus))
{
    buildPickers();
    buildSliders();
    buildForm();
    connectSignals();
    showScenario(m_planner->scenario());
    sizeSliders();
}

void InputPanel::buildPickers()
{
    m_model = new QComboBox;
    addPickerItems(m_model, m_models);
    m_gpu = new QComboBox;
    addPickerItems(m_gpu, m_gpus);
    // The price the money figures use (--price): the card's published price until one is typed;
    // 0 clears a typed price. The range is --price's (core/inputranges.h).
    m_price = new QDoubleSpinBox;
    m_price->setDecimals(2);
    m_price->setRange(0, InputRanges::of(RealInput::Price).high);
    m_price->setSingleStep(0.1);
    m_price->setPrefix(QStringLiteral("$"));
    m_price->setSuffix(tr(" per GPU-hour"));
    m_price->setSpecialValueText(tr("no price: type one"));
    m_price->setKeyboardTracking(false); // one undo step per entered price, not per keystroke
    m_price->setAccessibleName(tr("Price in dollars per GPU-hour"));
    m_engine = new QComboBox;
    for (QComboBox *combo : {m_model, m_gpu, m_engine}) { // long names elide instead of widening the panel
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(14);
    }
    m_engineSettingsButton = new QPushButton(tr("Settings…")); // no mnemonic: the panel's letters are taken
    m_engineSettingsButton->setToolTip(tr("The engine's settings: utilization or memory fraction, max_model_len, max_num_seqs, n_ctx, ..."));
    // The engine's name in the box, its rule in the tooltip and the derivation: the rule's
    // formula was cut at every width a trial tried ("vLLM: card × gpu_memory_utilizati").
    for (Engine e : Engines::all()) {
        m_engine->addItem(engineLabel(e), int(e));
        m_engine->setItemData(m_engine->count() - 1, Engines::describe(e), Qt::ToolTipRole);
    }
}

void InputPanel::buildSliders()
{
    m_contextSlider = makeSlider(1000, tr("Context length"));
    m_contextSlider->setPageStep(50);
    m_contextSlider->setTickInterval(100);
    m_contextSpin = new TokenSpinBox; // one recompute and one undo step per entered value
    m_contextSpin->setRange(1, 1'000'000'000'000);
    m_contextSpin->setSingleStep(1000);
    m_contextSpin->setSuffix(tr(" tokens"));
    m_contextSpin->setFieldName(tr("Context"));
    m_contextSpin->setAccessibleName(tr("Context length in tokens"));
    m_contextNote = new QLabel;
    m_contextNote->setWordWrap(true);

    m_sessionsSlider = makeSlider(512, tr("Concurrent sessions"));
    m_sessionsSlider->setMinimum(1);
    m_sessionsSlider->setPageStep(8);
    m_sessionsSlider->setTickInterval(64);
    m_sessionsSpin = new TokenSpinBox;
    m_sessionsSpin->setRange(1, 1'000'000'000);
    m_sessionsSpin->setFieldName(tr("Sessions"));
    m_sessionsSpin->setAccessibleName(tr("Concurrent sessions"));

    const QList<Dtype> dtypes = Dtypes::offered();
    m_kvDtypeSlider = makeSlider(int(dtypes.size()) - 1, tr("KV-cache precision"));
    m_kvDtypeLabel = valueLabel();
    m_weightsDtypeSlider = makeSlider(int(dtypes.size()) - 1, tr("Weight precision"));
    m_weightsDtypeLabel = valueLabel();
    m_kvHeadsSlider = makeSlider(0, tr("KV heads (what-if)"));
    m_kvHeadsLabel = valueLabel();
    m_kvHeadsReset = new QPushButton(tr("Reset")); // no mnemonic: Alt+R is the Risk box on Lengths and risk
    m_kvHeadsReset->setToolTip(tr("Restore the preset's num_key_value_heads"));
    m_tpSlider = makeSlider(3, tr("Tensor parallelism"));
    m_tpLabel = valueLabel();
}

void InputPanel::buildForm()
{
    auto *form = new QFormLayout(this);
    m_form = form;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // Mnemonics unique in the window (menus: F E T V; the other panes use D O A and their own pages'):
    // Alt+C and Alt+S go to the boxes, where a number is typed, not to the sliders.
    form->addRow(buddyLabel(tr("&Model"), m_model), m_model);
    form->addRow(buddyLabel(tr("&GPU"), m_gpu), m_gpu);
    form->addRow(buddyLabel(tr("Price"), m_price), m_price);
    form->addRow(buddyLabel(tr("E&ngine rule"), m_engine), row(m_engine, m_engineSettingsButton));
    form->addRow(buddyLabel(tr("&Context"), m_contextSpin), m_contextSlider);
    form->addRow(QString(), m_contextSpin);
    form->addRow(QString(), m_contextNote);
    form->addRow(buddyLabel(tr("&Sessions"), m_sessionsSpin), row(m_sessionsSlider, m_sessionsSpin));
    form->addRow(buddyLabel(tr("&KV precision"), m_kvDtypeSlider), row(m_kvDtypeSlider, m_kvDtypeLabel));
    form->addRow(buddyLabel(tr("&Weight precision"), m_weightsDtypeSlider), row(m_weightsDtypeSlider, m_weightsDtypeLabel));
    form->addRow(buddyLabel(tr("KV &heads"), m_kvHeadsSlider), row(m_kvHeadsSlider, m_kvHeadsLabel, m_kvHeadsReset));
    form->addRow(buddyLabel(tr("T&P"), m_tpSlider), row(m_tpSlider, m_tpLabel));
    form->addRow(new SidePoolInputs(m_planner)); // images, decoding share, host KV (issue 14)
    m_sidePools = new SidePoolsPanel(m_planner, m_models);
    form->addRow(m_sidePools);
}

void InputPanel::connectSignals()
{
    connect(m_model, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0 && i < m_models.size())
            m_planner->setModel(m_models.at(i));
    });
    connect(m_gpu, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0 && i < m_gpus.size())
            m_planner->setGpu(m_gpus.at(i));
    });
    connect(m_engine, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_planner->setEngine(Engine(m_engine->itemData(i).toInt())); });
    connect(m_engineSettingsButton, &QPushButton::clicked, this, [this] {
        if (!m_engineSettings)
            m_engineSettings = new EngineSettingsDialog(m_planner, window());
        m_engineSettings->show();
        m_engineSettings->raise();
        m_engineSettings->activateWindow();
    });
    // Each drag of a slider is one undo step of its own (its steps merge; the next drag's do not
    // join it), and so is each step taken by a key, the wheel or a click on the groove: two
    // keyboard changes of the KV precision with a Tab between them were undone by one Ctrl+Z.
    for (QSlider *s : {m_contextSlider, m_sessionsSlider, m_kvDtypeSlider, m_weightsDtypeSlider, m_kvHeadsSlider, m_tpSlider}) {
        connect(s, &QSlider::sliderPressed, m_planner, &Planner::beginDrag);
        connect(s, &QSlider::actionTriggered, m_planner, [this](int action) {
            if (action != QAbstractSlider::SliderMove && action != QAbstractSlider::SliderNoAction)
                m_planner->beginDrag();
        });
    }
    connect(m_contextSlider, &QSlider::valueChanged, this, [this](int pos) {
        m_planner->setContextTokens(positionToContext(pos), m_contextSlider->isSliderDown());
    });
    connect(m_contextSpin, &TokenSpinBox::valueChanged, this, [this](qint64 v) { m_planner->setContextTokens(v); });
    connect(m_sessionsSlider, &QSlider::valueChanged, this,
            [this](int v) { m_planner->setSessions(v, m_sessionsSlider->isSliderDown()); });
    connect(m_sessionsSpin, &TokenSpinBox::valueChanged, this, [this](qint64 v) { m_planner->setSessions(v); });
    connect(m_kvDtypeSlider, &QSlider::valueChanged, this,
            [this](int v) { m_planner->setKvDtype(Dtypes::offered().value(v)); });
    connect(m_weightsDtypeSlider, &QSlider::valueChanged, this,
            [this](int v) { m_planner->setWeightsDtype(Dtypes::offered().value(v)); });
    connect(m_kvHeadsSlider, &QSlider::valueChanged, this, [this](int v) {
        const QVector<int> choices = kvHeadChoices();
        if (v >= 0 && v < choices.size())
            m_planner->setKvHeadsOverride(choices.at(v));
    });
    connect(m_price, &QDoubleSpinBox::valueChanged, this, [this](double usd) {
        Scenario s = m_planner->scenario();
        // The card's own price, or none, is no override: a later card keeps its own.
        if (usd <= 0 || (s.gpu.priceUsdPerHour && std::abs(usd - *s.gpu.priceUsdPerHour) < 0.005))
            s.priceUsdPerGpuHour.reset();
        else
            s.priceUsdPerGpuHour = usd;
        m_planner->edit(s, ScenarioCommand::Other, tr("Change price per GPU-hour"));
    });
    connect(m_kvHeadsReset, &QPushButton::clicked, this, [this] { m_planner->setKvHeadsOverride(std::nullopt); });
    connect(m_tpSlider, &QSlider::valueChanged, this, [this](int v) { m_planner->setTp(kTpChoices[std::clamp(v, 0, 3)]); });
    connect(m_planner, &Planner::scenarioChanged, this, &InputPanel::showScenario);
}

void InputPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) { // the window's zoom
        for (QLabel *l : {m_kvDtypeLabel, m_weightsDtypeLabel, m_kvHeadsLabel, m_tpLabel})
            sizeValueLabel(l);
        sizeSliders();
        reflow();
    }
}

void InputPanel::sizeSliders()
{
    // Long enough to drag with intent (about twelve characters), whatever the box beside it needs.
    const int length = fontMetrics().averageCharWidth() * 12;
    for (QSlider *s : {m_contextSlider, m_sessionsSlider, m_kvDtypeSlider, m_weightsDtypeSlider, m_kvHeadsSlider, m_tpSlider})
        s->setMinimumWidth(length);
}

void InputPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    reflow();
}

namespace {
// The widest label and the widest field's minimum in `form`, pixels.
QPair<int, int> columnWidths(const QFormLayout *form)
{
    int labels = 0, fields = 0;
    for (int r = 0; r < form->rowCount(); ++r) {
        if (QLayoutItem *l = form->itemAt(r, QFormLayout::LabelRole))
            labels = std::max(labels, l->sizeHint().width());
        if (QLayoutItem *f = form->itemAt(r, QFormLayout::FieldRole))
            fields = std::max(fields, f->minimumSize().width());
    }
    return {labels, fields};
}
} // namespace

int InputPanel::narrowestWidth() const
{
    const auto [labels, fields] = columnWidths(m_form);
    const QMargins m = m_form->contentsMargins();
    return m.left() + std::max(labels, fields) + m.right();
}

QSize InputPanel::minimumSizeHint() const
{
    return QSize(narrowestWidth(), QWidget::minimumSizeHint().height());
}

void InputPanel::reflow()
{
    // Labels beside their fields when both fit the width, else every label above its
    // field (one column, read top to bottom): never a field squeezed or cut.
    const auto [labels, fields] = columnWidths(m_form);
    const QMargins m = m_form->contentsMargins();
    const int spacing = std::max(m_form->horizontalSpacing(), style()->pixelMetric(QStyle::PM_LayoutHorizontalSpacing));
    const int sideBySide = m.left() + labels + spacing + fields + m.right();
    const auto policy = width() >= sideBySide ? QFormLayout::DontWrapRows : QFormLayout::WrapAllRows;
    if (m_form->rowWrapPolicy() != policy)
        m_form->setRowWrapPolicy(policy);
    fitContextNote();
}

void InputPanel::fitContextNote()
{
    // A wrapped note is given the lines it wraps to at the width it has: the scroll area sized
    // the panel without asking, and under qt6ct's larger font at 1280 x 720 the note's second
    // line ("128 Ki)") was drawn over the Sessions row (trials, twice; seen on screen before and after).
    const int width = m_contextSpin->width();
    if (width > 0)
        m_contextNote->setMinimumHeight(m_contextNote->heightForWidth(width));
}

void InputPanel::setPresets(QVector<ModelShape> models, QVector<GpuSpec> gpus)
{
    // The scenario's own model and card stay offered when the new list lacks them
    // (a preset removed, a config.json imported): the plan never changes under the user.
    const Scenario &s = m_planner->scenario();
    auto hasModel = [&models](const QString &id) { return std::any_of(models.cbegin(), models.cend(), [&id](const ModelShape &m) { return m.id == id; }); };
    auto hasGpu = [&gpus](const QString &id) { return std::any_of(gpus.cbegin(), gpus.cend(), [&id](const GpuSpec &g) { return g.id == id; }); };
    if (!s.model.id.isEmpty() && !hasModel(s.model.id))
        models.append(s.model);
    if (!s.gpu.id.isEmpty() && !hasGpu(s.gpu.id))
        gpus.append(s.gpu);
    m_models = std::move(models);
    m_gpus = std::move(gpus);
    const QSignalBlocker b1(m_model), b2(m_gpu);
    m_model->clear();
    addPickerItems(m_model, m_models);
    m_gpu->clear();
    addPickerItems(m_gpu, m_gpus);
    showScenario(s);
}

void InputPanel::addModel(const ModelShape &model)
{
    const auto known = std::find_if(m_models.begin(), m_models.end(), [&model](const ModelShape &m) { return m.id == model.id; });
    const QSignalBlocker block(m_model);
    if (known != m_models.end()) {
        *known = model;
    } else {
        m_models.append(model);
        m_model->addItem(model.name, model.id);
    }
    // Its name may now be shared (or no longer): every entry's label again.
    for (int i = 0; i < m_models.size(); ++i)
        m_model->setItemText(i, pickerLabel(m_models, m_models.at(i)));
}

qint64 InputPanel::contextTop() const
{
    // "1K to the model's maximum and beyond": four times the maximum, at least 1M.
    const qint64 maxPos = m_planner->scenario().model.maxPositionEmbeddings;
    return std::max<qint64>(1'048'576, 4 * maxPos);
}

int InputPanel::contextToPosition(qint64 tokens) const
{
    const double lo = std::log(double(kContextBottom)), hi = std::log(double(contextTop()));
    const double t = (std::log(double(std::max<qint64>(tokens, 1))) - lo) / (hi - lo);
    return int(std::lround(std::clamp(t, 0.0, 1.0) * 1000));
}

qint64 InputPanel::positionToContext(int position) const
{
    const double lo = std::log(double(kContextBottom)), hi = std::log(double(contextTop()));
    const double tokens = std::exp(lo + (hi - lo) * position / 1000.0);
    // Round to 3 significant figures so a drag lands on readable lengths.
    const double mag = std::pow(10.0, std::floor(std::log10(tokens)) - 2);
    return qint64(std::llround(tokens / mag) * mag);
}

QVector<int> InputPanel::kvHeadChoices() const
{
    QVector<int> out;
    const ModelShape &m = m_planner->scenario().model;
    const int heads = m.attentionHeads > 0 ? m.attentionHeads : m.kvHeads;
    for (int h = 1; h <= heads; ++h)
        if (heads % h == 0)
            out << h;
    return out;
}

void InputPanel::showScenario(const Scenario &s)
{
    const QSignalBlocker b1(m_model), b2(m_gpu), b3(m_engine), b4(m_contextSlider), b5(m_contextSpin),
        b6(m_sessionsSlider), b7(m_sessionsSpin), b8(m_kvDtypeSlider), b9(m_weightsDtypeSlider), b10(m_kvHeadsSlider),
        b11(m_tpSlider), b12(m_price);
    m_model->setCurrentIndex(m_model->findData(s.model.id));
    m_gpu->setCurrentIndex(m_gpu->findData(s.gpu.id));
    m_engine->setCurrentIndex(m_engine->findData(int(s.engine)));
    if (!m_contextSlider->isSliderDown())
        m_contextSlider->setValue(contextToPosition(s.contextTokens));
    m_contextSpin->setValue(s.contextTokens);
    const qint64 maxPos = s.model.maxPositionEmbeddings;
    // A maximum of whole Ki is said in Ki too, the "128K" a model card gives: typed as 128K it
    // would read 128,000 (k = 1,000, as everywhere in Headroom).
    const QString ki = maxPos % 1024 == 0 ? tr(" (%1 Ki)").arg(Units::formatCount(maxPos / 1024)) : QString();
    m_contextNote->setText(maxPos > 0 ? (s.contextTokens > maxPos ? tr("<b>Beyond the model's maximum of %1 tokens%2</b>").arg(Units::formatCount(maxPos), ki)
                                                                  : tr("Model maximum: %1 tokens%2").arg(Units::formatCount(maxPos), ki))
                                      : QString());
    fitContextNote();
    m_sessionsSlider->setValue(int(std::min<qint64>(s.sessions, m_sessionsSlider->maximum())));
    m_sessionsSpin->setValue(s.sessions);
    m_sessionsSpin->setSuffix(s.sessions == 1 ? tr(" session") : tr(" sessions"));
    const QList<Dtype> dtypes = Dtypes::offered();
    m_kvDtypeSlider->setValue(int(dtypes.indexOf(s.effectiveKvDtype())));
    m_kvDtypeLabel->setText(QStringLiteral("%1 · %2").arg(Dtypes::name(s.effectiveKvDtype()), Dtypes::describeSize(s.effectiveKvDtype())));
    m_weightsDtypeSlider->setValue(int(dtypes.indexOf(s.effectiveWeightsDtype())));
    const bool checkpoint = !s.weightsDtype && s.model.checkpointBytes > 0;
    m_weightsDtypeLabel->setText(checkpoint ? tr("checkpoint") : Dtypes::name(s.effectiveWeightsDtype()));
    const QVector<int> choices = kvHeadChoices();
    const bool hasHeads = s.model.kvHeads > 0;
    m_kvHeadsSlider->setEnabled(hasHeads);
    m_kvHeadsSlider->setRange(0, std::max(0, int(choices.size()) - 1));
    m_kvHeadsSlider->setValue(int(choices.indexOf(s.effectiveKvHeads())));
    m_kvHeadsLabel->setText(hasHeads ? (s.kvHeadsOverride ? tr("%1 (what-if)").arg(s.effectiveKvHeads())
                                                          : tr("%1 (preset)").arg(s.effectiveKvHeads()))
                                     : tr("n/a (no K/V heads)"));
    m_kvHeadsReset->setEnabled(bool(s.kvHeadsOverride));
    int tpIndex = 0;
    for (int i = 0; i < 4; ++i)
        if (kTpChoices[i] == s.tp)
            tpIndex = i;
    m_tpSlider->setValue(tpIndex);
    m_tpLabel->setText(s.tp == 1 ? tr("1 GPU") : tr("%1 GPUs").arg(s.tp));
    m_price->setValue(s.effectivePrice().value_or(0));
    m_price->setToolTip(s.priceUsdPerGpuHour ? tr("Your price per GPU-hour (--price); 0 returns to the card's own%1")
                                                   .arg(s.gpu.priceUsdPerHour ? tr(", $%1").arg(*s.gpu.priceUsdPerHour, 0, 'f', 2) : QString())
                        : s.gpu.priceUsdPerHour ? tr("%1's price per GPU-hour: %2 (%3). Type your own to change it.")
                                                      .arg(s.gpu.name, s.gpu.priceSource, s.gpu.priceDate)
                                                : tr("%1 has no published price: type one for the money figures").arg(s.gpu.name));
}

} // namespace Headroom
