// SPDX-License-Identifier: GPL-3.0-or-later
#include "sidepoolinputs.h"
#include "planner.h"
#include "plan/visionpool.h"
#include "core/inputranges.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <cmath>

namespace Headroom {

SidePoolInputs::SidePoolInputs(Planner *planner, QWidget *parent) : QWidget(parent), m_planner(planner)
{
    m_images = new QSpinBox;
    m_images->setRange(0, VisionPool::maxImagesPerRequest);
    m_images->setAccessibleName(tr("Images per request"));
    m_images->setToolTip(tr("Images per request on a vision model: their tokens count against the context and the engine keeps an "
                            "encoder cache. 0 = text only (vLLM then does not load the encoder)."));
    m_share = new QDoubleSpinBox;
    const RealRange &share = InputRanges::of(RealInput::DecodingShare);
    m_share->setDecimals(3);
    m_share->setRange(0.001, share.high);
    m_share->setSingleStep(0.05);
    m_share->setAccessibleName(tr("Share of sessions decoding at once"));
    m_share->setToolTip(tr("The share of retained sessions decoding at once; the others wait between turns and can sit in host memory."));
    m_host = new QDoubleSpinBox;
    m_host->setDecimals(0);
    m_host->setRange(0, 1e6);
    m_host->setSingleStep(128);
    m_host->setSuffix(tr(" GB"));
    m_host->setSpecialValueText(tr("none"));
    m_host->setAccessibleName(tr("Host memory for KV per node in GB"));
    m_host->setToolTip(tr("Host memory for KV per node (vLLM KV offloading, LMCache, SGLang's hierarchical cache): idle sessions stay warm there."));

    auto *form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows); // a label above its box when the panel is narrow
    auto label = [](const QString &text, QWidget *buddy) {
        auto *l = new QLabel(text);
        l->setBuddy(buddy);
        return l;
    };
    form->addRow(label(tr("Images / re&quest"), m_images), m_images);
    form->addRow(label(tr("Decoding share"), m_share), m_share);
    form->addRow(label(tr("Host KV memor&y per node"), m_host), m_host);

    connect(m_images, &QSpinBox::valueChanged, this, [this](int n) {
        Scenario s = m_planner->scenario();
        s.imagesPerRequest = n;
        m_planner->edit(s, ScenarioCommand::Other, tr("Change images per request"));
    });
    connect(m_share, &QDoubleSpinBox::valueChanged, this, [this](double f) {
        Scenario s = m_planner->scenario();
        if (f >= 1.0)
            s.decodingShare.reset();
        else
            s.decodingShare = f;
        m_planner->edit(s, ScenarioCommand::Other, tr("Change decoding share"));
    });
    connect(m_host, &QDoubleSpinBox::valueChanged, this, [this](double gb) {
        Scenario s = m_planner->scenario();
        if (gb <= 0)
            s.hostKvMemoryBytes.reset();
        else
            s.hostKvMemoryBytes = qint64(std::llround(gb * 1e9));
        m_planner->edit(s, ScenarioCommand::Other, tr("Change host KV memory"));
    });
    connect(m_planner, &Planner::scenarioChanged, this, &SidePoolInputs::showScenario);
    showScenario(m_planner->scenario());
}

void SidePoolInputs::showScenario(const Scenario &s)
{
    const QSignalBlocker b1(m_images), b2(m_share), b3(m_host);
    // Set only when they differ: setValue repaints a box even at its own value (QAbstractSpinBox
    // rewrites its line edit), so a drag of another input repainted these three on every step.
    if (m_images->value() != s.imagesPerRequest)
        m_images->setValue(s.imagesPerRequest);
    m_images->setEnabled(VisionPool::hasEncoder(s));
    const double share = s.decodingShare.value_or(1.0), host = s.hostKvMemoryBytes ? double(*s.hostKvMemoryBytes) / 1e9 : 0.0;
    if (m_share->value() != share)
        m_share->setValue(share);
    if (m_host->value() != host)
        m_host->setValue(host);
}

} // namespace Headroom
