// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/units.h"
#include "engines/logreading.h"
#include "inputs/scenario.h"
#include "kv/kvcost.h"

#include <QJsonObject>
#include <QStringList>

namespace Headroom {

/// What the chosen engine would print at start-up, predicted from a scenario:
/// its KV budget per GPU and how it counts it (blocks, tokens, concurrency),
/// or llama.cpp's / Ollama's up-front "KV self" size. `predicts` names the
/// engine's own printed lines these figures stand for.
struct EngineFigures
{
    Engine engine = Engine::Plain;
    qint64 kvCacheBytes = 0;     ///< KV memory per GPU ("Available KV cache memory", SGLang K+V, TRT-LLM "allocated")
    qint64 numBlocks = 0;        ///< blocks (vLLM "# GPU blocks" / num_blocks; TRT-LLM blocks); SGLang: tokens (page 1)
    qint64 kvCacheTokens = 0;    ///< tokens the pool holds ("GPU KV cache size", SGLang "#tokens", llama.cpp n_ctx)
    double maxConcurrency = 0;   ///< requests of max_model_len at once ("Maximum concurrency")
    qint64 maxModelLen = 0;      ///< the length the concurrency is quoted at
    qint64 kvSelfBytes = 0;      ///< llama.cpp "KV self size" / Ollama memory.required.kv, K and V (whole model)
    qint64 recurrentStateBytes = 0; ///< llama.cpp recurrent-state buffer (R + S), f32, all sequences
    qint64 activationPeakBytes = 0; ///< vLLM: the activation peak used (measured or estimated)
    qint64 kvNeededBytes = 0;    ///< vLLM: KV one request of max_model_len needs per GPU ("... GiB KV cache is needed")
    qint64 estimatedMaxModelLen = 0; ///< vLLM: the longest request the pool holds ("estimated maximum model length")
    qint64 kvCacheTokensLow = 0;  ///< before hardware: the token count at the low end of the budget's stated uncertainty
    qint64 kvCacheTokensHigh = 0; ///< and at the high end; both equal kvCacheTokens once calibrated
    qint64 budgetSpreadDownBytes = 0; ///< before hardware: how far the KV budget per GPU may lie below the figure (EngineBudget)
    qint64 budgetSpreadUpBytes = 0;   ///< and above it
    QStringList spreadTerms;          ///< the estimated terms behind the spread, each with its range and sources
    QStringList predicts;        ///< the engine's printed lines these figures reproduce
    QString note;                ///< what is not predicted, and why

    /// The engine_* JSON fields of `headroom plan --engine E`.
    void addTo(QJsonObject &o) const;
};

/// The KV budget per GPU under one engine's rule, and the workspace it implies.
struct EngineBudget
{
    qint64 memory = 0;     ///< the card as the engine sees it (torch's total for vLLM, SGLang, TensorRT-LLM)
    qint64 usable = 0;     ///< card, or card x utilization (vLLM)
    qint64 workspace = 0;  ///< per GPU: what is neither weights nor KV within `usable`
    qint64 budget = 0;     ///< KV budget per GPU (may be negative: a shortfall)
    qint64 activationPeak = 0; ///< vLLM only
    QString rule;          ///< the rule with the numbers, for the derivation (units filled in later)
    /// Before hardware: how far the real budget may lie below (`spreadDown`) and above
    /// (`spreadUp`) `budget`, bytes per GPU, the sum over the terms the rule estimated of the
    /// range each was seen in across public cases; 0 for a term the user or a log gave.
    qint64 spreadDown = 0;
    qint64 spreadUp = 0;
    QStringList spreadTerms; ///< each estimated term and the range it was seen in, for the derivation

    /// Adds one estimated term: it may be `more` bytes above its estimate (the budget that
    /// much lower) or `less` bytes below it (the budget higher); `term` says the range and
    /// its sources. Sums saturate at 2^63 - 1.
    void addSpread(qint64 more, qint64 less, const QString &term);
};

/// One KV-cache format an engine's own argument list accepts (EngineRule::kvDtypes).
struct KvDtypeSupport
{
    Dtype dtype;
    const char *spelling;         ///< the engine's own word for it ("fp8", "q8_0", "NVFP4")
    EngineVersion since;          ///< the first release that takes it ({}: every release checked)
    bool needsNativeCard = false; ///< the engine runs it only on a card whose tensor cores run it (GpuSpec::nativeFormats)
};

/// How an engine admits a session into its KV cache (issue 32): named in the derivation and in
/// plan --json (admission_rule). Engines that page (vLLM, SGLang, TensorRT-LLM's MAX_UTILIZATION)
/// charge a session its resident tokens as they arrive; TensorRT-LLM's GUARANTEED_NO_EVICT
/// reserves each request's prompt and its maximum output at admission.
struct AdmissionRule
{
    QString name;  ///< "paged", "slots", "GUARANTEED_NO_EVICT", "MAX_UTILIZATION"
    QString text;  ///< one sentence for the derivation, with its source
    /// The output tokens reserved beside each prompt at admission (--max-output-tokens under
    /// GUARANTEED_NO_EVICT); empty when a session is charged only what it holds.
    std::optional<qint64> reservedOutputTokens;
};

/// The most sessions an engine runs at once, whatever its KV cache holds: the setting's value
/// and its words, as the engine names the setting ("max_num_seqs 3", "max_num_seqs 1,024 (vLLM's default here)").
struct RunningCap
{
    qint64 sessions = 0;
    QString setting;
};

/// One engine's whole rule, one class per engine (model/engines/<name>.cpp),
/// the way vLLM keeps one spec class per cache kind: how it carves the card
/// (budget), what it prints (figures), how its start-up log reads (log
/// patterns and what a reading means for the scenario), its words for the
/// derivation, and its version families. Stateless: one instance per engine.
class EngineRule
{
public:
    virtual ~EngineRule() = default;

    /// The enum value this rule stands for.
    virtual Engine id() const = 0;
    /// Command-line spelling ("vllm"); other accepted spellings in aliases().
    virtual QString name() const = 0;
    virtual QStringList aliases() const { return {}; }
    /// One line with the rule and its source, for the UI.
    virtual QString describe() const = 0;
    /// The engine as its project spells it in prose ("vLLM", "TensorRT-LLM").
    virtual QString title() const = 0;

    /// The newest release family this rule was checked against (the default version).
    virtual EngineVersion checkedVersion() const = 0;
    /// The version in force for `s`: --engine-version, else checkedVersion().
    virtual EngineVersion version(const Scenario &s) const { return s.engineSettings.engineVersion.value_or(checkedVersion()); }

    /// The KV-cache formats the engine's own argument list accepts (--kv-cache-dtype,
    /// --cache-type-k, ...), each with the first release that takes it and whether it runs
    /// only on a card that runs the format natively; kvDtypeSource() cites the list. The
    /// 16-bit formats stand for the engine's "auto" (the model's own dtype).
    virtual QVector<KvDtypeSupport> kvDtypes() const = 0;
    /// Where kvDtypes() is read: the engine's flag and the file (or page) at a release.
    virtual QString kvDtypeSource() const = 0;
    /// The card vendors the engine runs on (GpuSpec::vendor), with its source, or nothing
    /// when it runs on any (vLLM, SGLang, llama.cpp and Ollama build for CUDA and ROCm).
    virtual QPair<QStringList, QString> cardVendors() const { return {}; }
    /// The newest release whose KV-cache formats were read (kvDtypeSource), by default
    /// checkedVersion().
    virtual EngineVersion kvDtypesCheckedVersion() const { return checkedVersion(); }
    /// The release whose KV-cache formats apply to `s`: --engine-version, else
    /// kvDtypesCheckedVersion() (vLLM: version(s), always set).
    virtual EngineVersion kvDtypeVersion(const Scenario &s) const
    {
        return s.engineSettings.engineVersion.value_or(kvDtypesCheckedVersion());
    }

    /// The KV budget per GPU for `s` with weights per GPU `weightsPerGpu`.
    /// Throws InputError naming the flag for out-of-range settings.
    virtual EngineBudget budget(const Scenario &s, qint64 weightsPerGpu) const = 0;
    /// The engine's printed figures for `s`, given its KV cost and budget per GPU.
    virtual EngineFigures figures(const Scenario &s, const KvCost &cost, qint64 budgetPerGpu) const = 0;
    /// Engine-only JSON fields beyond EngineFigures' common ones.
    virtual void addJson(const EngineFigures &, QJsonObject &) const {}

    /// The derivation's lines for the engine's own figures ("vLLM would print: ..."),
    /// sizes in `u`.
    virtual QStringList derivation(const Scenario &s, const EngineFigures &f, UnitSystem u) const = 0;
    /// The engine-only settings this rule reads (--gpu-memory-utilization, --mem-fraction-static,
    /// --n-ctx, ...), by input: every engine reads the inputs no rule lists (the model, card,
    /// lengths, TP). A setting another engine's rule lists and this one does not is refused
    /// when given for it (Engines::foreignSetting), never ignored in silence.
    virtual QList<Input> settings() const { return {}; }
    /// True when the usable memory is card x gpu_memory_utilization (vLLM), so the
    /// derivation names the product: the rule reads Input::GpuMemoryUtilization.
    bool usesUtilization() const { return settings().contains(Input::GpuMemoryUtilization); }
    /// True when --kv-cache-memory pins this engine's budget (it reads Input::KvCacheMemory).
    bool honoursKvCacheMemory() const { return settings().contains(Input::KvCacheMemory); }

    /// The regular expressions of this engine's start-up lines, each filling `r`.
    /// Figures are parsed with LogParse (errors name `field` and the line).
    virtual void addLogPatterns(QVector<LogPattern> &, LogReading &, const QString &) const {}
    /// What a reading of this engine's log sets of the scenario's settings, beyond the
    /// common part LogCalibration::applySettings does (lengths, TP, cache type).
    virtual void applyLog(const LogReading &, Scenario &) const {}
    /// What the log's measured figures mean for the scenario beyond LogCalibration::apply's
    /// common part (vLLM: the profiled workspace); applyLog holds the settings alone.
    virtual void applyMeasurements(const LogReading &, Scenario &) const {}
    /// The engine's own share-of-memory setting (vLLM's gpu_memory_utilization, SGLang's
    /// mem_fraction_static, TensorRT-LLM's free_gpu_memory_fraction) and its value in force for
    /// `s`, the engine's default when unset; empty for an engine without one (plain, llama.cpp,
    /// Ollama: their caches are sized in cells, not as a share).
    virtual std::optional<std::pair<RealInput, double>> memoryFraction(const Scenario &) const { return std::nullopt; }
    /// Sets that setting of `s` to `fraction` (0 to 1); nothing for an engine without one.
    virtual void setMemoryFraction(Scenario &, double) const {}
    /// How this engine admits sessions under `s` (AdmissionRule); paged by default.
    virtual AdmissionRule admission(const Scenario &s) const;
    /// The most sessions this engine runs at once under `s` (RunningCap), or nothing when only
    /// its KV cache bounds them (plain, SGLang).
    virtual std::optional<RunningCap> runningCap(const Scenario &) const { return std::nullopt; }
    /// The name of its printed token count in a calibration table.
    virtual QString tokensFigure() const { return QStringLiteral("GPU KV cache size"); }
};

namespace Engines {
/// The rule of engine `e` (the dispatcher: one line per engine, engines/enginerule.cpp).
const EngineRule &rule(Engine e);
/// The engines whose rules read `input` as their own setting (EngineRule::settings), in menu
/// order; empty when it is no engine's own setting (every rule reads it).
QList<Engine> readers(Input input);
/// Empty when engine `e` reads `input`; else why it does not, naming the engines that do, as
/// the message of an InputError on the input's flag: "is a setting of the sglang engine only;
/// the vllm engine does not read it: add --engine sglang, or leave it out".
QString foreignSetting(Engine e, Input input);
} // namespace Engines

/// The KV budget per GPU under `s.engine`: Engines::rule(s.engine).budget(...).
EngineBudget engineBudget(const Scenario &s, qint64 weightsPerGpu);

/// The engine's printed figures for `s`: Engines::rule(s.engine).figures(...).
EngineFigures computeEngineFigures(const Scenario &s, const KvCost &cost, qint64 budgetPerGpu);

namespace EngineMath {
/// floor(bytes x fraction), computed in long double so 80 GB x 0.9 loses no byte.
qint64 fractionOf(qint64 bytes, double fraction);
/// Throws InputError(field: the fraction as its source spells it, Scenario::field) unless 0 < f <= 1.
void checkFraction(double f, const QString &field);
/// The CUDA context and communicator set-up an engine holds before it measures free
/// memory, per GPU: 0.45 GiB. SGLang's "avail mem" at "Load weight begin" sat 0.4-0.6 GiB
/// below the card as torch sees it in E07 (L4) and E18 (RTX 4090).
constexpr qint64 cudaContextBytes = 483'183'820;
/// ceil(n / multiple) x multiple; InputError(field) when that passes 2^63 - 1.
qint64 padTo(qint64 n, qint64 multiple, const QString &field);
/// The cells a sliding-window layer holds in an engine that allocates up front:
/// min(cap, padTo(window x seqs + batch, multiple)), exact for any inputs (a product
/// beyond 64 bits is beyond `cap`). llama.cpp pads to 256 (llama-kv-cache-iswa.cpp),
/// Ollama's estimate does not pad (multiple 1, llm/memory.go).
qint64 windowCells(qint64 window, qint64 seqs, qint64 batch, qint64 cap, qint64 multiple);
/// max(0, memory - weights - budget), what is neither weights nor KV, computed
/// without wrapping (budget may be negative: a shortfall).
qint64 workspaceLeft(qint64 memory, qint64 weights, qint64 budget);
/// The JSON fields of an engine that allocates its KV cells up front (llama.cpp, Ollama):
/// engine_kv_self_bytes and engine_recurrent_state_bytes.
void addKvSelfJson(const EngineFigures &f, QJsonObject &o);
/// The derivation line of such an engine: "<printed>: N cells → KV <exact bytes> (<GiB>)", plus
/// the recurrent state when there is one. `printed` names the engine's own line.
QString kvSelfLine(const QString &printed, const EngineFigures &e);
} // namespace EngineMath

} // namespace Headroom
