// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "report/reporttext.h"
#include "report/deployment.h"

#include "inputs/scenario.h"
#include "plan/capacityresult.h"

#include <QString>
#include <QVector>

namespace Headroom {

/// One variation of the scenario for the sensitivity table.
struct Variant
{
    QString kind;    ///< the input varied, for "the assumptions that move the answer most"
    QString change;  ///< in words
    Scenario scenario;
};

/// A row of the report's sensitivity table: one variation and its plan (one
/// computeCapacity() call), with the deployment it leads to (empty when the plan failed).
struct SensitivityRow
{
    HEADROOM_TR_CONTEXT(ReportWriter)
    Variant v;
    CapacityResult r;
    Deployment dep;

    /// Sessions per GPU: the deployment's sessions per TP group over the variation's TP.
    double perGpu() const;
    /// ", past the model's N-token maximum" (or --max-model-len's) in HTML when the plan
    /// finds the variation's context past it (CapacityResult::contextBeyondMax:
    /// max_position_embeddings, or --max-model-len when given): no engine starts there.
    /// Empty otherwise.
    QString pastMaximum() const;
    /// Whether the row varies a choice (another TP, the next card up) rather than an assumption.
    bool isChoice() const;
};

/// The sensitivity rows of scenario `s` planned as `r`: each retention cap, session length
/// or context at -50% and +50%, the other KV precision, the other risks, every other tensor
/// parallelism and the next card up. A TP the model cannot split to, or at which no session
/// fits, is no choice and is left out (as solveMinGpus skips it).
QVector<SensitivityRow> sensitivityRows(const Scenario &s, const CapacityResult &r);

} // namespace Headroom
