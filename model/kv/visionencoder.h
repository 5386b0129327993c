// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QString>

namespace Headroom {

/// A multimodal checkpoint's vision encoder as config.json's `vision_config`
/// describes it: the tower and its projector into the language model, and
/// the tokens one image takes in the prompt.
struct VisionEncoder
{
    qint64 params = 0;          ///< encoder + projector parameters (0 = none, or a family not counted)
    qint64 tokensPerImage = 0;  ///< image tokens in the prompt per image (mm_tokens_per_image, else (image_size / patch_size)^2)
    QString note;               ///< what was counted, or why nothing was
};

/// Counts the vision encoder of a config.json (0 params without a
/// `vision_config`). A ViT tower as transformers' SiglipVisionModel /
/// CLIPVisionModel builds it from vision_config (hidden h, intermediate i,
/// num_hidden_layers L, patch_size p, image_size S, num_channels C = 3):
/// patch embedding C x p x p x h + h, position embeddings (S / p)^2 x h (CLIP:
/// one more for the class token, plus the class embedding h and a pre-layer
/// norm 2h), per layer q/k/v/o 4 x (h^2 + h), MLP h x i + i + i x h + h and two
/// LayerNorms 4h, a post-layer norm 2h (transformers
/// models/siglip/modeling_siglip.py, models/clip/modeling_clip.py); then the
/// projector: Gemma-3's mm_input_projection h x text hidden + mm_soft_emb_norm
/// h (models/gemma3/modeling_gemma3.py, Gemma3MultiModalProjector), else
/// LLaVA's two-layer MLP h x H + H + H x H + H (models/llava/modeling_llava.py,
/// LlavaMultiModalProjector). Gemma-3-27B-IT: 416,866,032 tower +
/// 6,194,304 projector = 423,060,336. A vision_config without hidden_size,
/// intermediate_size, num_hidden_layers and patch_size (Qwen-VL's depth /
/// embed_dim spelling) gives 0 and a note. `textHidden` is the language
/// model's hidden_size. Errors: InputError naming the vision_config field when
/// it is not a whole number in range, or the count leaves 64 bits.
VisionEncoder countVisionEncoder(const QJsonObject &config, qint64 textHidden);

} // namespace Headroom
