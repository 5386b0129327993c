// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/scenarioparts.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "core/units.h"

#include <QJsonArray>
#include <cmath>

namespace Headroom::ScenarioParts {

namespace {

QJsonArray bigArray(const QVector<qint64> &v)
{
    QJsonArray a;
    for (qint64 x : v)
        a.append(big(x));
    return a;
}

QJsonArray doubleArray(const QVector<double> &v)
{
    QJsonArray a;
    for (double x : v)
        a.append(x);
    return a;
}

QVector<qint64> readBigArray(const QJsonObject &o, const char *key)
{
    QVector<qint64> out;
    const QJsonArray a = o.value(QString::fromLatin1(key)).toArray();
    for (int i = 0; i < a.size(); ++i) {
        try {
            out << readBig(QJsonObject{{QString::fromLatin1(key), a.at(i)}}, key);
        } catch (const InputError &) {
            throw InputError(QStringLiteral("distribution.%1[%2]").arg(QString::fromLatin1(key)).arg(i), QStringLiteral("must be a whole number"));
        }
    }
    return out;
}

QVector<double> readDoubleArray(const QJsonObject &o, const char *key)
{
    QVector<double> out;
    for (const QJsonValue &v : o.value(QString::fromLatin1(key)).toArray()) {
        if (!v.isDouble() || !std::isfinite(v.toDouble()))
            throw InputError(QStringLiteral("distribution.") + QString::fromLatin1(key), QStringLiteral("must hold numbers"));
        out << v.toDouble();
    }
    return out;
}

// The model's group at `index` in its "groups", every figure checked against its kind
// ("model.groups[index]." names the field a refusal carries). Throws InputError.
LayerGroup layerGroupFromJson(const QJsonObject &g, qsizetype index)
{
    LayerGroup l;
    const QString gp = QStringLiteral("model.groups[%1].").arg(index);
    const qint64 kind = readBig(g, "kind", 0, gp);
    if (kind < int(LayerKind::FullAttention) || kind > int(LayerKind::Recurrent))
        throw InputError(gp + QStringLiteral("kind"), QStringLiteral("unknown layer kind %1").arg(kind));
    l.kind = LayerKind(kind);
    const bool heads = l.kind == LayerKind::FullAttention || l.kind == LayerKind::SlidingWindow;
    l.count = readInt(g, "count", 0, 1, gp);
    l.kvHeads = readInt(g, "kv_heads", 0, heads ? 1 : 0, gp);
    l.headDimK = readInt(g, "head_dim_k", 0, heads ? 1 : 0, gp);
    l.headDimV = readInt(g, "head_dim_v", 0, heads ? 1 : 0, gp);
    l.window = readBig(g, "window", 0, gp);
    if (l.kind == LayerKind::SlidingWindow && l.window < 1)
        throw InputError(gp + QStringLiteral("window"), QStringLiteral("a sliding-window group needs a window of at least 1 token"));
    l.latentDim = readInt(g, "latent_dim", 0, l.kind == LayerKind::Mla ? 1 : 0, gp);
    l.ropeDim = readInt(g, "rope_dim", 0, 0, gp);
    l.indexerHeadDim = readInt(g, "indexer_head_dim", 0, 0, gp);
    if (l.indexerHeadDim > 0 && l.kind != LayerKind::Mla)
        throw InputError(gp + QStringLiteral("indexer_head_dim"),
                         QStringLiteral("a sparse-attention indexer belongs to an MLA group; set it to 0 here"));
    l.convStateValues = readBig(g, "conv_state_values", 0, gp);
    l.ssmStateValues = readBig(g, "ssm_state_values", 0, gp);
    if (l.convStateValues < 0)
        throw InputError(gp + QStringLiteral("conv_state_values"), QStringLiteral("must not be negative"));
    if (l.ssmStateValues < 0 || (l.kind == LayerKind::Recurrent && l.convStateValues == 0 && l.ssmStateValues == 0))
        throw InputError(gp + QStringLiteral("ssm_state_values"), QStringLiteral("a recurrent group needs a positive state"));
    return l;
}

// What a model's parts must agree on, as a hand-edited file may break it: its groups hold at
// most num_hidden_layers layers (fewer where layers hold no KV of their own: Gemma 3n's
// KV-sharing layers, Nemotron-H's MLP layers), and active_params are at most total_params (an
// attacker's 10^13 active of 8 x 10^9 timed a first token at 1,933 s). Throws InputError.
void checkModelWhole(const ModelShape &m)
{
    const qint64 held = m.groupLayers();
    if (m.hiddenLayers > 0 && held > m.hiddenLayers)
        throw InputError(QStringLiteral("model.groups"), QStringLiteral("hold %1 layers, more than num_hidden_layers %2").arg(held).arg(m.hiddenLayers));
    if (m.totalParams > 0 && m.activeParams > m.totalParams)
        throw InputError(QStringLiteral("model.active_params"), QStringLiteral("%1 is more than total_params %2: the active parameters are some of the whole")
                                                                     .arg(Units::formatCount(m.activeParams), Units::formatCount(m.totalParams)));
}

} // namespace

QJsonObject modelToJson(const ModelShape &m)
{
    QJsonArray groups;
    for (const LayerGroup &g : m.groups)
        groups.append(QJsonObject{{QStringLiteral("kind"), int(g.kind)},
                                  {QStringLiteral("count"), g.count},
                                  {QStringLiteral("kv_heads"), g.kvHeads},
                                  {QStringLiteral("head_dim_k"), g.headDimK},
                                  {QStringLiteral("head_dim_v"), g.headDimV},
                                  {QStringLiteral("window"), big(g.window)},
                                  {QStringLiteral("latent_dim"), g.latentDim},
                                  {QStringLiteral("rope_dim"), g.ropeDim},
                                  {QStringLiteral("indexer_head_dim"), g.indexerHeadDim},
                                  {QStringLiteral("conv_state_values"), big(g.convStateValues)},
                                  {QStringLiteral("ssm_state_values"), big(g.ssmStateValues)}});
    return QJsonObject{{QStringLiteral("id"), m.id},
                       {QStringLiteral("name"), m.name},
                       {QStringLiteral("hf_id"), m.hfId},
                       {QStringLiteral("source"), m.source},
                       {QStringLiteral("source_date"), m.sourceDate},
                       {QStringLiteral("model_type"), m.modelType},
                       {QStringLiteral("num_attention_heads"), m.attentionHeads},
                       {QStringLiteral("num_key_value_heads"), m.kvHeads},
                       {QStringLiteral("head_dim"), m.headDim},
                       {QStringLiteral("hidden_size"), big(m.hiddenSize)},
                       {QStringLiteral("num_hidden_layers"), m.hiddenLayers},
                       {QStringLiteral("intermediate_size"), big(m.intermediateSize)},
                       {QStringLiteral("moe_intermediate_size"), big(m.moeIntermediateSize)},
                       {QStringLiteral("vocab_size"), big(m.vocabSize)},
                       {QStringLiteral("total_params"), big(m.totalParams)},
                       {QStringLiteral("active_params"), big(m.activeParams)},
                       {QStringLiteral("derived_params"), big(m.derivedParams)},
                       {QStringLiteral("derived_active_params"), big(m.derivedActiveParams)},
                       {QStringLiteral("checkpoint_bytes"), big(m.checkpointBytes)},
                       {QStringLiteral("vision_params"), big(m.visionParams)},
                       {QStringLiteral("tokens_per_image"), big(m.tokensPerImage)},
                       {QStringLiteral("max_position_embeddings"), big(m.maxPositionEmbeddings)},
                       {QStringLiteral("num_experts"), m.numExperts},
                       {QStringLiteral("num_experts_per_tok"), m.expertsPerToken},
                       {QStringLiteral("weights_dtype"), Dtypes::name(m.weightsDtype)},
                       {QStringLiteral("recurrent_state_dtype"), Dtypes::name(m.recurrentStateDtype)},
                       {QStringLiteral("groups"), groups}};
}

ModelShape modelFromJson(const QJsonObject &o)
{
    ModelShape m;
    const QString mp = QStringLiteral("model.");
    m.id = readText(o, "id", mp);
    m.name = readText(o, "name", mp);
    m.hfId = readText(o, "hf_id", mp);
    m.source = readText(o, "source", mp);
    m.sourceDate = readText(o, "source_date", mp);
    m.modelType = readText(o, "model_type", mp);
    m.attentionHeads = readInt(o, "num_attention_heads", 0, 0, mp);
    m.kvHeads = readInt(o, "num_key_value_heads", 0, 0, mp);
    m.headDim = readInt(o, "head_dim", 0, 0, mp);
    m.hiddenSize = readBig(o, "hidden_size", 0, mp);
    m.hiddenLayers = readInt(o, "num_hidden_layers", 0, 0, mp);
    m.intermediateSize = readBig(o, "intermediate_size", 0, mp);
    m.moeIntermediateSize = readBig(o, "moe_intermediate_size", 0, mp);
    m.vocabSize = readBig(o, "vocab_size", 0, mp);
    m.totalParams = readBig(o, "total_params", 0, mp);
    m.activeParams = readBig(o, "active_params", 0, mp);
    m.derivedParams = readBig(o, "derived_params", 0, mp);
    m.derivedActiveParams = readBig(o, "derived_active_params", 0, mp);
    m.checkpointBytes = readBig(o, "checkpoint_bytes", 0, mp);
    // A vision encoder (issue 14): its parameters lie within total_params.
    m.visionParams = readBig(o, "vision_params", 0, mp);
    m.tokensPerImage = readBig(o, "tokens_per_image", 0, mp);
    // Not checked against total_params: --params may set a smaller total than the shapes
    // count, and the encoder's share of the weights is capped at the whole (VisionPool).
    if (m.visionParams < 0)
        throw InputError(mp + QStringLiteral("vision_params"), QStringLiteral("must not be negative"));
    if (m.tokensPerImage < 0 || m.tokensPerImage > 1'000'000'000)
        throw InputError(mp + QStringLiteral("tokens_per_image"), QStringLiteral("must be from 0 to 1,000,000,000"));
    m.maxPositionEmbeddings = readBig(o, "max_position_embeddings", 0, mp);
    m.numExperts = readInt(o, "num_experts", 0, 0, mp);
    m.expertsPerToken = readInt(o, "num_experts_per_tok", 0, 0, mp);
    for (const char *k : {"total_params", "active_params", "checkpoint_bytes", "max_position_embeddings", "hidden_size", "intermediate_size",
                          "moe_intermediate_size", "vocab_size"})
        if (readBig(o, k, 0, mp) < 0)
            throw InputError(mp + QString::fromLatin1(k), QStringLiteral("must not be negative"));
    m.weightsDtype = Dtypes::parse(JsonNumbers::text(o, "weights_dtype", QStringLiteral("bf16"), mp, QStringLiteral("a precision name such as bf16")), QStringLiteral("model.weights_dtype"));
    m.recurrentStateDtype = Dtypes::parse(JsonNumbers::text(o, "recurrent_state_dtype", QStringLiteral("fp32"), mp, QStringLiteral("a precision name such as bf16")),
                                          QStringLiteral("model.recurrent_state_dtype"));
    const QJsonArray groups = JsonNumbers::array(o, "groups", mp);
    if (groups.isEmpty())
        throw InputError(QStringLiteral("model.groups"), QStringLiteral("a model needs its layer groups"));
    if (groups.size() > 1000)
        throw InputError(QStringLiteral("model.groups"), QStringLiteral("%1 layer groups: a model has a handful").arg(groups.size()));
    for (qsizetype i = 0; i < groups.size(); ++i) {
        const QJsonValue v = groups.at(i);
        if (!v.isObject())
            throw InputError(QStringLiteral("model.groups[%1]").arg(i), QStringLiteral("must be a layer-group object ({...}), got %1").arg(JsonNumbers::shown(v)));
        m.groups << layerGroupFromJson(v.toObject(), i);
        // A thousand groups of 10^7 layers would pass 2^31: the whole model is held to
        // the same 10^7 as one group (a model has at most a few hundred layers).
        if (m.groupLayers() > 10'000'000)
            throw InputError(QStringLiteral("model.groups[%1].count").arg(i), QStringLiteral("the groups hold more than 10,000,000 layers in all"));
        // Each KV head serves a whole group of query heads (the config.json reader's rule).
        const LayerGroup &g = m.groups.constLast();
        if ((g.kind == LayerKind::FullAttention || g.kind == LayerKind::SlidingWindow) && m.attentionHeads > 0 && g.kvHeads > m.attentionHeads)
            throw InputError(QStringLiteral("model.groups[%1].kv_heads").arg(i),
                             QStringLiteral("%1 is more than num_attention_heads %2 (each KV head serves a whole group of query heads)")
                                 .arg(g.kvHeads).arg(m.attentionHeads));
    }
    checkModelWhole(m);
    return m;
}

QJsonObject gpuToJson(const GpuSpec &g)
{
    return QJsonObject{{QStringLiteral("id"), g.id},
                       {QStringLiteral("kind"), QStringLiteral("gpu")},
                       {QStringLiteral("name"), g.name},
                       {QStringLiteral("vendor"), g.vendor},
                       {QStringLiteral("memory_bytes"), big(g.memoryBytes)},
                       {QStringLiteral("memory_source"), g.memorySource},
                       {QStringLiteral("torch_memory_bytes"), g.torchMemoryBytes > 0 ? big(g.torchMemoryBytes) : QJsonValue()},
                       {QStringLiteral("torch_memory_source"), g.torchMemorySource},
                       {QStringLiteral("marketed_memory"), g.marketedMemory},
                       {QStringLiteral("bandwidth_bytes_per_s"), g.bandwidthBytesPerSecond > 0 ? big(g.bandwidthBytesPerSecond) : QJsonValue()},
                       {QStringLiteral("bf16_dense_tflops"), g.bf16DenseTflops},
                       {QStringLiteral("native_formats"), g.nativeFormats ? QJsonValue(GpuSpec::formatsToJson(*g.nativeFormats)) : QJsonValue()},
                       {QStringLiteral("native_formats_source"), g.nativeFormatsSource},
                       {QStringLiteral("host_link_bytes_per_s"), g.hostLinkBytesPerSecond > 0 ? big(g.hostLinkBytesPerSecond) : QJsonValue()},
                       {QStringLiteral("peer_link_bytes_per_s"), g.peerLinkBytesPerSecond > 0 ? big(g.peerLinkBytesPerSecond) : QJsonValue()},
                       {QStringLiteral("source"), g.source},
                       {QStringLiteral("source_date"), g.sourceDate},
                       {QStringLiteral("price_usd_per_hour"), optional(g.priceUsdPerHour)},
                       {QStringLiteral("price_source"), g.priceSource},
                       {QStringLiteral("price_date"), g.priceDate}};
}

QJsonObject distributionToJson(const LengthDistribution &d)
{
    return QJsonObject{{QStringLiteral("kind"), int(d.kind)},
                       {QStringLiteral("spec"), d.spec},
                       {QStringLiteral("lengths"), bigArray(d.lengths)},
                       {QStringLiteral("probabilities"), doubleArray(d.probabilities)},
                       {QStringLiteral("prompt_lengths"), bigArray(d.promptLengths)},
                       {QStringLiteral("prompt_probabilities"), doubleArray(d.promptProbabilities)},
                       {QStringLiteral("arrival_rate_per_second"), d.arrivalRatePerSecond},
                       {QStringLiteral("mean_output_tokens"), d.meanOutputTokens},
                       {QStringLiteral("requests"), big(d.requests)},
                       {QStringLiteral("conversations"), big(d.conversations)},
                       {QStringLiteral("shared_prefix_tokens"), big(d.sharedPrefixTokens)}};
}

LengthDistribution distributionFromJson(const QJsonObject &o)
{
    LengthDistribution d;
    const QString dp = QStringLiteral("distribution.");
    const qint64 kind = readBig(o, "kind", 0, dp);
    if (kind < 0 || kind > int(LengthDistribution::Kind::Quantiles))
        throw InputError(dp + QStringLiteral("kind"), QStringLiteral("unknown kind %1").arg(kind));
    d.kind = LengthDistribution::Kind(kind);
    d.spec = readText(o, "spec", dp);
    d.lengths = readBigArray(o, "lengths");
    d.probabilities = readDoubleArray(o, "probabilities");
    d.promptLengths = readBigArray(o, "prompt_lengths");
    d.promptProbabilities = readDoubleArray(o, "prompt_probabilities");
    d.arrivalRatePerSecond = readReal(o, RealInput::ArrivalRate, 0, dp);
    d.meanOutputTokens = readReal(o, RealInput::MeanOutputTokens, 0, dp);
    d.requests = readBig(o, "requests", 0, dp);
    // A conversation trace's grouping and shared prefix (absent from files before them: 0).
    d.conversations = readBig(o, "conversations", 0, dp, 0);
    d.sharedPrefixTokens = readBig(o, "shared_prefix_tokens", 0, dp, 0);
    if (d.sharedPrefixTokens > LengthDistribution::maxTokens)
        throw InputError(dp + QStringLiteral("shared_prefix_tokens"), QStringLiteral("must be at most 2^53 tokens"));
    double sum = 0;
    for (double p : d.probabilities)
        sum += p;
    if (d.lengths.isEmpty() || d.lengths.size() != d.probabilities.size() || std::abs(sum - 1) > 1e-6
        || d.promptLengths.size() != d.promptProbabilities.size())
        throw InputError(QStringLiteral("distribution"), QStringLiteral("lengths and probabilities do not form a distribution"));
    for (int i = 0; i < d.lengths.size(); ++i)
        if (d.lengths.at(i) < 1 || (i > 0 && d.lengths.at(i) <= d.lengths.at(i - 1)) || d.probabilities.at(i) < 0)
            throw InputError(QStringLiteral("distribution.lengths"), QStringLiteral("must be positive and ascending"));
    if (d.lengths.last() > LengthDistribution::maxTokens)
        throw InputError(QStringLiteral("distribution.lengths"), QStringLiteral("must be at most 2^53 tokens"));
    if (!d.promptLengths.isEmpty()) {
        double promptSum = 0;
        for (int i = 0; i < d.promptLengths.size(); ++i) {
            if (d.promptLengths.at(i) < 1 || (i > 0 && d.promptLengths.at(i) <= d.promptLengths.at(i - 1)) || d.promptProbabilities.at(i) < 0)
                throw InputError(QStringLiteral("distribution.prompt_lengths"), QStringLiteral("must be positive and ascending"));
            promptSum += d.promptProbabilities.at(i);
        }
        if (std::abs(promptSum - 1) > 1e-6 || d.promptLengths.last() > d.lengths.last())
            throw InputError(QStringLiteral("distribution.prompt_probabilities"),
                             QStringLiteral("prompts must form a distribution no longer than the sessions"));
    }
    // The output is part of each session's length (an attacker's 10^12 quartered the decode time).
    if (d.meanOutputTokens > double(d.lengths.last()))
        throw InputError(QStringLiteral("distribution.mean_output_tokens"), QStringLiteral("%1 tokens is more than the longest session, %2 tokens: the output is part of each session's length")
                                                                                 .arg(Units::formatDecimal(d.meanOutputTokens, 1), Units::formatCount(d.lengths.last())));
    for (const auto &[value, key] : {std::pair{d.arrivalRatePerSecond, "arrival_rate_per_second"}, {d.meanOutputTokens, "mean_output_tokens"},
                                     {double(d.requests), "requests"}, {double(d.conversations), "conversations"},
                                     {double(d.sharedPrefixTokens), "shared_prefix_tokens"}})
        if (!(value >= 0))
            throw InputError(QStringLiteral("distribution.") + QString::fromLatin1(key), QStringLiteral("must not be negative"));
    return d;
}

} // namespace Headroom::ScenarioParts
