// SPDX-License-Identifier: GPL-3.0-or-later
#include "commands/options.h"
#include "core/inputranges.h"

#include "core/inputerror.h"
#include "core/units.h"

namespace Headroom {

QCommandLineOption opt(const char *name, const char *help, const char *valueName)
{
    return valueName ? QCommandLineOption(QString::fromLatin1(name), QString::fromUtf8(help), QString::fromLatin1(valueName))
                     : QCommandLineOption(QString::fromLatin1(name), QString::fromUtf8(help));
}

namespace {

// The model, the card, TP, the context and sessions, the precisions and the engine: what a plan is of.
QList<QCommandLineOption> shapeOptions()
{
    return {
        opt("model", "Model preset id (see `headroom presets list`) or a HuggingFace config.json path.", "ID|PATH"),
        opt("layers", "Custom shape: num_hidden_layers.", "N"),
        opt("heads", "Custom shape: num_attention_heads (optional; checks TP).", "N"),
        opt("kv-heads", "num_key_value_heads: the custom shape's, or a what-if override of the preset's.", "N"),
        opt("head-dim", "Custom shape: head_dim.", "N"),
        opt("params", "Total parameters (8e9 or 8000000000); sets the count a config.json lacks.", "N"),
        opt("gpu", "GPU preset id, e.g. h100-sxm-80gb.", "ID"),
        opt("gpu-memory", "Memory per card, with a unit: 80GB, 79.6GiB. Alone, a custom card.", "SIZE"),
        opt("weights", "Weights of the whole model, split over the replica's GPUs (TP × PP): 16GB.", "SIZE"),
        opt("workspace", "Workspace per card (activations + runtime reserve); default 4GB.", "SIZE"),
        opt("tp", "Tensor-parallel GPUs per replica (default 1).", "N"),
        opt("context", "Resident tokens per session (prompt + output).", "TOKENS"),
        opt("sessions", "Concurrent sessions to check (default 1).", "N"),
        opt("weights-dtype", "Weight precision: fp32 bf16 fp16 fp8 int8 int4 nvfp4 mxfp4 (q8_0 q4_0 as ggml blocks).", "D"),
        opt("kv-dtype", "KV-cache precision: fp32 bf16 fp16 fp8 int8 int4 nvfp4 mxfp4 q8_0 q4_0.", "D"),
        opt("engine", "Budget rule and printed figures: plain, vllm, sglang, trtllm, llamacpp or ollama.", "E"),
    };
}

// The engine's own settings and measured figures, by the flag the engine takes.
QList<QCommandLineOption> engineOptions()
{
    return {
        opt("kv-cache-memory", "Pin the KV budget per GPU, as vLLM's --kv-cache-memory (or a printed figure).", "SIZE"),
        opt("free-memory-before", "Measured free memory per GPU before the weights load (SGLang).", "SIZE"),
        opt("free-memory-after", "Measured free memory per GPU after the weights load (SGLang, TensorRT-LLM).", "SIZE"),
        opt("activation-peak", "vLLM's measured activation peak per GPU.", "SIZE"),
        opt("non-torch", "vLLM's measured non-torch memory per GPU.", "SIZE"),
        opt("cuda-graph", "vLLM's measured CUDA-graph memory per GPU.", "SIZE"),
        opt("vllm-version", "vLLM version family, e.g. 0.6, 0.10, 0.11 (default 0.11); the same as --engine-version for vllm.", "X.Y"),
        // Engine versions and build settings (engine flags, one block).
        opt("engine-version", "The chosen engine's release, X.Y or X.Y.Z (default: the newest its rule was checked against, "
                              "named in the derivation).", "X.Y"),
        opt("max-num-seqs", "vLLM's max_num_seqs (sizes the sampler's dummy pass; default 1024 on 70 GiB+ non-A100 cards, else 256).", "N"),
        opt("max-batch-size", "TensorRT-LLM build setting max_batch_size (default 2048).", "N"),
        opt("max-num-tokens", "TensorRT-LLM build setting max_num_tokens (default 8192).", "N"),
        opt("max-seq-len", "TensorRT-LLM build setting max_seq_len (default: max_model_len).", "N"),
        opt("scheduler-policy", "TensorRT-LLM's capacity scheduler: guaranteed-no-evict (its default: each request's prompt and "
                                "maximum output reserved at admission) or max-utilization (paged, as vLLM).", "POLICY"),
        opt("max-output-tokens", "The most tokens a request may generate (the clients' max_tokens): what TensorRT-LLM's "
                                 "guaranteed-no-evict reserves beside each prompt (default: not known; each session at its own length).", "N"),
        opt("pp", "Pipeline-parallel stages per replica: each GPU holds ceil(layers / N) layers (default 1).", "N"),
        opt("dp", "Data-parallel replicas: the fleet when no --target-sessions is given (its GPUs N x TP x PP, its cost per "
                  "month and its overflow probability); refused beside --target-sessions, which sizes the fleet itself (default 1).", "N"),
        opt("ep", "Expert-parallel GPUs the routed experts are split over (e.g. TP x DP with vLLM's --enable-expert-parallel).", "N"),
        opt("max-num-batched-tokens", "vLLM's max_num_batched_tokens (sets the activation estimate).", "N"),
        opt("mem-fraction-static", "SGLang's mem_fraction_static (default: SGLang 0.5's rule by card memory and TP; 0.4: 0.88, 0.87, 0.85, 0.81 by TP).", "F"),
        opt("free-gpu-memory-fraction", "TensorRT-LLM's free_gpu_memory_fraction (default 0.9).", "F"),
        opt("tokens-per-block", "TensorRT-LLM tokens per block (default 32; 64 in older builds).", "N"),
        opt("n-ctx", "llama.cpp n_ctx / Ollama num_ctx (cells).", "N"),
        opt("n-seq", "llama.cpp n_seq_max / Ollama num_parallel (default 1).", "N"),
        opt("n-batch", "llama.cpp n_ubatch / Ollama batch (default 512).", "N"),
        opt("gpu-memory-utilization", "vLLM's gpu_memory_utilization (default 0.9).", "F"),
        opt("block-size", "Tokens per KV block (default 16; 1 = no paging).", "N"),
        opt("max-model-len", "Maximum context per session (default: max_position_embeddings).", "N"),
        opt("preallocate", "Reserve the maximum context for every session."),
    };
}

// The lengths, the risk, the fleet, speed and money: what the plan is asked.
QList<QCommandLineOption> servingOptions()
{
    return {
        opt("price", "Price in dollars per GPU-hour (overrides the preset's).", "USD"),
        opt("distribution", "Session lengths: trace:PATH, lognormal:median=N,p99=N[,max=N] (or p90=N), "
                            "quantiles:p50=N,p90=N,p99=N[,p99.9=N],max=N, fixed:N.", "SPEC"),
        opt("length-scale", "Multiply every length of the distribution (a short trace standing in for long contexts).", "K"),
        opt("retain", "Retained-context cap: each session keeps min(L, TOKENS).", "TOKENS"),
        opt("output-tokens", "Output tokens per session, the rest being its prompt (default: a trace's own split, else half the context); "
                             "times the prefill of the sessions replacing those that end.", "TOKENS"),
        opt("risk", "Accepted probability that one replica's KV pool overflows: 0.01, 2e-4, 0.02% or \"1 in 5,000\" (default 0.01; down to 1e-6).", "P"),
        opt("fleet-risk", "Accepted probability that some replica of the whole fleet overflows (the same forms as --risk): "
                          "each replica's risk is solved from it over the fleet's replicas. Not with --risk.", "P"),
        opt("margin", "Headroom kept free when setting the admission limit (default 0.05).", "F"),
        opt("target-sessions", "Concurrent sessions the fleet must hold (sizes gpus_needed).", "N"),
        opt("bandwidth-efficiency", "Achieved / peak memory bandwidth in decode (default: the engine's fitted fraction, 0.634 to 0.95).", "F"),
        opt("compute-utilization", "Achieved / peak dense TFLOPS (default: the engines' fitted 0.523).", "F"),
        opt("traffic-multiplier", "Scale a trace's arrival rate (plan: for Little's law; replay: K times the conversations, each keeping its own timing; default 1).", "K"),
        opt("images-per-request", "Images per request on a vision model (default 1): their tokens count against the context; "
                                  "0 = text only (no encoder cache; under vLLM the encoder is not loaded either).", "N"),
        opt("decoding-share", "Share of retained sessions decoding at once (default 1: all of them); the rest wait in host memory.", "F"),
        opt("turn-seconds", "With --think-seconds: a turn's decode time; the decoding share is turn / (turn + think).", "S"),
        opt("think-seconds", "With --turn-seconds: the idle time between one turn and the next.", "S"),
        opt("host-kv-memory", "Host memory for KV per node (vLLM KV offloading, LMCache, SGLang --hicache-size), e.g. 1TB.", "SIZE"),
        opt("gpus-per-node", "Cards per node sharing that host memory (default 8).", "N"),
    };
}

// Side pools beside weights and KV, each off unless given.
QList<QCommandLineOption> sidePoolOptions()
{
    return {
        opt("draft-model", "Speculative decoding: a draft model, preset id or config.json path (none: off).", "ID|PATH"),
        opt("draft-layers", "Speculative decoding: MTP / EAGLE heads as N layers of the target's shape (0: off).", "N"),
        opt("num-speculative-tokens", "Speculative decoding: tokens proposed per step, lookahead slots per session (0: off).", "K"),
        opt("max-loras", "LoRA adapter slots resident on the card, as vLLM's --max-loras (0: off).", "N"),
        opt("max-lora-rank", "LoRA slots' rank, as vLLM's --max-lora-rank (default 16).", "R"),
        opt("lora-modules", "LoRA-adapted linear layers: a comma list of q,k,v,o,gate,up,down (default all).", "LIST"),
    };
}

// Output and the options of one command (replay, levers, diagnose, report).
QList<QCommandLineOption> commandOptions()
{
    return {
        opt("units", "Units for text output: GB (10^9, default) or GiB (2^30).", "GB|GiB"),
        opt("json", "Print one JSON object (bytes as integers)."),
        opt("scenario", "Start from a .headroom scenario file (or a saved plan --json); flags override it.", "FILE"),
        opt("save", "plan: also save the resolved scenario to FILE (.headroom); - writes it to standard output in place of the plan.", "FILE"),
        opt("solve", "plan: max-context (for --sessions), min-gpus (for --target-sessions) or max-model-len; replay: min-replicas.", "WHAT"),
        opt("trace", "replay: a trace with arrivals (Mooncake JSON lines with hash_ids, or an Azure / BurstGPT CSV).", "FILE"),
        opt("replicas", "replay: data-parallel replicas of the plan's shape (default --dp, else 1).", "R"),
        opt("keep-idle", "replay: seconds an idle conversation's KV blocks are kept (default: until evicted).", "SECONDS"),
        opt("users", "replay: scale the trace's conversation arrivals so that N conversations are alive on average.", "N"),
        opt("max-preemptions-per-hour", "replay --solve min-replicas: preemptions allowed per hour (default 0).", "N"),
        opt("max-queue-ms", "replay --solve min-replicas: the p99 queue wait allowed.", "MS"),
        opt("target-sessions-per-gpu", "levers: the sessions per GPU an option must reach.", "F"),
        opt("max-itl-ms", "levers: the inter-token latency an option must keep under.", "MS"),
        opt("shared-prefix", "levers: a system prompt of TOKENS shared by every session (prefix caching).", "TOKENS"),
        opt("host-memory", "levers: host memory per GPU for offloading cold KV (default 256GB).", "SIZE"),
        opt("decode-from-host", "levers: offloaded sessions decode from host memory (the link on every step) rather than wait there."),
        opt("failed-at-sessions", "diagnose: the session count at which the service failed.", "N"),
        QCommandLineOption({QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("report: the PDF to write (a file: - is refused, a PDF is binary)."), QStringLiteral("FILE")),
        opt("page-size", "report: A4 (default) or Letter.", "SIZE"),
    };
}

} // namespace

void addCommandOptions(QCommandLineParser &p)
{
    for (const auto &options : {shapeOptions(), engineOptions(), servingOptions(), sidePoolOptions(), commandOptions()})
        p.addOptions(options);
}

QString value(const QCommandLineParser &p, const char *name)
{
    return p.value(QString::fromLatin1(name));
}

bool isSet(const QCommandLineParser &p, const char *name)
{
    return p.isSet(QString::fromLatin1(name));
}

qint64 countOpt(const QCommandLineParser &p, const char *name, qint64 minimum)
{
    return Units::parseCount(value(p, name), QStringLiteral("--") + QString::fromLatin1(name), minimum);
}

qint64 tokenOpt(const QCommandLineParser &p, const char *name)
{
    const qint64 v = countOpt(p, name);
    const QString reading = Units::decimalSuffixReading(value(p, name), v, QLocale(QLocale::English, QLocale::UnitedStates));
    if (!reading.isEmpty())
        QTextStream(stderr) << "note: --" << name << ' ' << reading << '\n';
    return v;
}

int smallOpt(const QCommandLineParser &p, const char *name)
{
    return InputRanges::small(countOpt(p, name), QStringLiteral("--") + QString::fromLatin1(name));
}

bool refuseRepeatedOptions(const QCommandLineParser &p, QTextStream &err)
{
    for (const QString &name : p.optionNames()) {
        if (name == QLatin1String("clear"))
            continue;
        const QStringList given = p.values(name);
        const QString flag = (name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + name;
        if (given.size() > 1) {
            err << "error: " << flag << ": given " << given.size() << " times (" << given.join(QStringLiteral(", "))
                << "); give it once, with the value you mean\n";
            return false;
        }
        if (given.isEmpty() && p.optionNames().count(name) > 1) {
            err << "error: " << flag << ": given " << p.optionNames().count(name) << " times; give it once\n";
            return false;
        }
    }
    return true;
}

bool refuseOtherCommandsOptions(const QCommandLineParser &p, const QString &command, QTextStream &err)
{
    // The options only some commands read: any other command refuses them, never ignores them.
    static const struct { const char *option; const char *commands; const char *hint; } commandOptions[] = {
        {"output", "report", " (plan, levers and diagnose print to standard output: redirect it, > FILE; plan --save FILE keeps the scenario)"},
        {"page-size", "report", ""},
        {"save", "plan", ""},
        {"solve", "plan replay", ""},
        {"trace", "replay", " (plan and levers read a trace as --distribution trace:PATH)"},
        {"replicas", "replay", " (plan sizes a fleet with --target-sessions or --dp)"},
        {"keep-idle", "replay", ""},
        {"users", "replay", ""},
        {"max-preemptions-per-hour", "replay", ""},
        {"max-queue-ms", "replay", ""},
        {"failed-at-sessions", "diagnose", ""},
        {"target-sessions-per-gpu", "levers", ""},
        {"max-itl-ms", "levers", ""},
        {"shared-prefix", "levers", ""},
        {"host-memory", "levers", ""},
        {"decode-from-host", "levers", ""},
        {"config", "presets", ""},
        {"from", "presets", ""},
        {"clear", "presets", ""},
        {"replace", "presets", ""},
    };
    for (const auto &c : commandOptions)
        if (p.isSet(QString::fromLatin1(c.option)) && !QString::fromLatin1(c.commands).split(QLatin1Char(' ')).contains(command)) {
            err << "error: --" << c.option << ": only `headroom " << QString::fromLatin1(c.commands).split(QLatin1Char(' ')).join(QStringLiteral("` and `headroom "))
                << (QString::fromLatin1(c.commands).contains(QLatin1Char(' ')) ? "` read it, not " : "` reads it, not ") << command << c.hint << '\n';
            return false;
        }
    return true;
}

} // namespace Headroom
