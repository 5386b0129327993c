// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

namespace Headroom {

/// The kind of one layer as a config.json names it, before it is sized.
enum class LayerSlot { Full, Sliding, Chunked, Linear, Lightning, Mamba, Mamba2, Stateless };

/// Which layer is which kind, and the token spans the windowed kinds keep.
struct LayerSlots
{
    QVector<LayerSlot> kinds; ///< one a layer, num_hidden_layers of them
    qint64 window = 0;        ///< sliding_window in tokens (0 = none)
    qint64 chunk = 0;         ///< attention_chunk_size in tokens (0 = none)
    QStringList notes;        ///< what was assumed, for ModelShape::sizingNotes (a window not applied)
};

/// The kind of each of `layers` layers of config `c` (of model_type `modelType`),
/// by the first architecture family's rule that applies (layerSlotsOf's table:
/// layer_types, Jamba, Qwen3-Next, Gemma 2, MiniMax, Nemotron-H, Llama 4, EXAONE 4,
/// Gemma 3 / Cohere2, Qwen2 (use_sliding_window, false when absent), a sliding_window in
/// Mistral, Mixtral, Phi-3, PhiMoE or Starcoder2); full attention everywhere when none does,
/// with a note when a sliding_window was not applied. Granite 4's "mamba" layers are Mamba-2 mixers.
/// Errors: InputError naming the field (layer_types not an array or of the wrong
/// length, a pattern of unknown letters, sliding or chunked layers without their
/// sliding_window / attention_chunk_size, use_sliding_window neither true nor false, ...).
LayerSlots layerSlotsOf(const QJsonObject &c, const QString &modelType, int layers);

/// True for Granite 4 (GraniteMoeHybridConfig): layer_types names "mamba" layers and
/// mamba_n_heads sizes them as Mamba-2 mixers.
bool hasGraniteMambaLayers(const QJsonObject &c);

} // namespace Headroom
