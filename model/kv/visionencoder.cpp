// SPDX-License-Identifier: GPL-3.0-or-later
#include "kv/visionencoder.h"
#include "core/jsonnumbers.h"
#include "core/namedcount.h"

#include <limits>

namespace Headroom {

namespace {

using Count = NamedCount;
constexpr const char *kParameters = "parameter count";

// A whole field of vision_config in [minimum, maximum], or the fallback when absent.
Count field(const QJsonObject &v, const char *key, qint64 fallback, qint64 minimum = 0,
            qint64 maximum = std::numeric_limits<qint64>::max())
{
    const QString name = QStringLiteral("vision_config.") + QString::fromLatin1(key);
    const QJsonValue x = v.value(QString::fromLatin1(key));
    if (x.isUndefined() || x.isNull())
        return Count(fallback, name, kParameters);
    return Count(JsonNumbers::whole(x, name, minimum, maximum), name, kParameters);
}

} // namespace

VisionEncoder countVisionEncoder(const QJsonObject &root, qint64 textHidden)
{
    VisionEncoder e;
    const QJsonValue value = root.value(QStringLiteral("vision_config"));
    if (!value.isObject())
        return e;
    const QJsonObject v = value.toObject();
    const QString type = v.value(QStringLiteral("model_type")).toString();
    const Count h = field(v, "hidden_size", 0), inter = field(v, "intermediate_size", 0);
    const Count layers = field(v, "num_hidden_layers", 0, 0, 1'000'000);
    const Count patch = field(v, "patch_size", 0, 0, 1'000'000), image = field(v, "image_size", 224, 0, 1'000'000);
    const Count channels = field(v, "num_channels", 3, 0, 1'000'000);
    if (h.v <= 0 || inter.v <= 0 || layers.v <= 0 || patch.v <= 0) {
        e.note = QStringLiteral("vision encoder not counted: vision_config needs hidden_size, intermediate_size, "
                                "num_hidden_layers and patch_size");
        return e;
    }
    const qint64 side = image.v / patch.v;
    const Count patches = Count(side, image.field, kParameters) * Count(side, image.field, kParameters);
    const bool clip = type == QLatin1String("clip_vision_model");
    Count tower = channels * patch * patch * h + h;                    // patch embedding (conv, bias)
    tower += (clip ? patches + Count(1) : patches) * h;                // position embeddings
    if (clip)
        tower += h + Count(2) * h;                                     // class embedding, pre-layer norm
    const Count layer = Count(4) * (h * h + h) + h * inter + inter + inter * h + h + Count(4) * h;
    tower += layers * layer + Count(2) * h;                            // encoder layers, post-layer norm
    const Count text(textHidden, QStringLiteral("hidden_size"), kParameters);
    const QString family = root.value(QStringLiteral("model_type")).toString();
    Count projector;
    if (family == QLatin1String("gemma3"))
        projector = h * text + h;                                      // mm_input_projection_weight, mm_soft_emb_norm
    else
        projector = h * text + text + text * text + text;              // linear_1, linear_2 with biases
    e.params = (tower + projector).v;
    const QJsonValue mm = root.value(QStringLiteral("mm_tokens_per_image"));
    e.tokensPerImage = mm.isUndefined() || mm.isNull() ? patches.v
                                                       : JsonNumbers::whole(mm, QStringLiteral("mm_tokens_per_image"), 1, 1'000'000'000);
    e.note = QStringLiteral("vision encoder %1: tower %2 + projector %3 parameters")
                 .arg(type.isEmpty() ? QStringLiteral("(ViT)") : type, Units::formatCount(tower.v), Units::formatCount(projector.v));
    return e;
}

} // namespace Headroom
