// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/enginesettingfields.h"
#include "core/inputerror.h"
#include "core/units.h"
#include "engines/enginerule.h"
#include "engines/llamacpp.h"
#include "engines/ollama.h"
#include "engines/sglang.h"
#include "engines/trtllm.h"
#include "engines/vllm.h"

namespace Headroom::EngineSettingFields {

namespace {

// The optional counts, by input.
std::optional<qint64> *countOf(Scenario &s, Input input)
{
    EngineSettings &e = s.engineSettings;
    switch (input) {
    case Input::MaxModelLen: return &s.maxModelLen;
    case Input::MaxNumSeqs: return &e.maxNumSeqs;
    case Input::MaxNumBatchedTokens: return &e.maxNumBatchedTokens;
    case Input::MaxBatchSize: return &e.trtMaxBatchSize;
    case Input::MaxNumTokens: return &e.trtMaxNumTokens;
    case Input::MaxSeqLen: return &e.trtMaxSeqLen;
    case Input::MaxOutputTokens: return &e.maxOutputTokens;
    case Input::NCtx: return &e.nCtx;
    default: return nullptr;
    }
}

// The measured or pinned sizes, by input.
std::optional<qint64> *sizeOf(Scenario &s, Input input)
{
    EngineSettings &e = s.engineSettings;
    switch (input) {
    case Input::KvCacheMemory: return &e.kvCacheMemory;
    case Input::FreeMemoryBefore: return &e.freeMemoryBefore;
    case Input::FreeMemoryAfter: return &e.freeMemoryAfter;
    case Input::ActivationPeak: return &e.activationPeak;
    case Input::NonTorch: return &e.nonTorch;
    case Input::CudaGraph: return &e.cudaGraph;
    default: return nullptr;
    }
}

// The whole-number settings with a default of their own, and that default.
struct Small
{
    int *value;
    int fallback;
};
std::optional<Small> smallOf(Scenario &s, Input input)
{
    EngineSettings &e = s.engineSettings;
    switch (input) {
    case Input::BlockSize: return Small{&s.blockSize, Engines::defaultBlockSize};
    case Input::TokensPerBlock: return Small{&e.trtTokensPerBlock, EngineSettings{}.trtTokensPerBlock};
    case Input::NSeq: return Small{&e.nSeq, EngineSettings{}.nSeq};
    case Input::NBatch: return Small{&e.nBatch, EngineSettings{}.nBatch};
    default: return std::nullopt;
    }
}

// The fractions: their range rule, and where `s` holds them.
std::optional<RealInput> realOf(Input input)
{
    switch (input) {
    case Input::GpuMemoryUtilization: return RealInput::GpuMemoryUtilization;
    case Input::MemFractionStatic: return RealInput::MemFractionStatic;
    case Input::FreeGpuMemoryFraction: return RealInput::FreeGpuMemoryFraction;
    default: return std::nullopt;
    }
}

// The fraction `s` holds for `input`, empty at its default.
std::optional<double> fractionIn(const Scenario &s, Input input)
{
    switch (input) {
    case Input::GpuMemoryUtilization:
        return s.gpuMemoryUtilizationGiven || s.gpuMemoryUtilization != Engines::defaultGpuMemoryUtilization ? std::optional(s.gpuMemoryUtilization)
                                                                                                           : std::nullopt;
    case Input::MemFractionStatic: return s.engineSettings.memFractionStatic;
    case Input::FreeGpuMemoryFraction:
        return s.engineSettings.freeGpuMemoryFraction != EngineSettings{}.freeGpuMemoryFraction ? std::optional(s.engineSettings.freeGpuMemoryFraction)
                                                                                                : std::nullopt;
    default: return std::nullopt;
    }
}

// The release `s` names for its engine, empty at the checked one.
std::optional<EngineVersion> versionIn(const Scenario &s)
{
    const EngineSettings &e = s.engineSettings;
    if (s.engine == Engine::Vllm) {
        const EngineVersion v{e.vllmMajor, e.vllmMinor};
        return v == Engines::rule(Engine::Vllm).checkedVersion() ? std::nullopt : std::optional(v);
    }
    return e.engineVersion;
}

// A fraction as typed back: the shortest text that reads as the same double.
QString fractionText(double v, const QLocale &locale)
{
    return locale.toString(v, 'g', QLocale::FloatingPointShortest);
}

// A typed number with its decimal point in `locale` or the C locale.
double readReal(RealInput input, const QString &text, const QString &field, const QLocale &locale)
{
    bool ok = false;
    const double v = locale.toDouble(text.trimmed(), &ok);
    return InputRanges::parse(input, ok ? QString::number(v, 'g', 17) : text, field);
}

} // namespace

QVector<EngineSettingField> of(Engine e)
{
    QVector<EngineSettingField> out;
    for (const Input input : Engines::rule(e).settings())
        out << EngineSettingField{input, false};
    if (e != Engine::LlamaCpp && e != Engine::Ollama)
        out.insert(e == Engine::Plain ? 0 : 1, EngineSettingField{Input::MaxModelLen, false});
    if (e == Engine::Plain || e == Engine::Vllm || e == Engine::Sglang)
        out << EngineSettingField{Input::BlockSize, false};
    if (Engines::rule(e).checkedVersion() != EngineVersion{})
        out << EngineSettingField{Input::MaxModelLen, true};
    return out;
}

QString flag(const EngineSettingField &f)
{
    return f.version ? QStringLiteral("--engine-version") : InputRanges::name(f.input, InputSource::Flag);
}

QString text(const Scenario &in, const EngineSettingField &f, const QLocale &locale)
{
    Scenario s = in;
    if (f.version) {
        const std::optional<EngineVersion> v = versionIn(s);
        return v ? v->text() : QString();
    }
    if (const std::optional<double> v = fractionIn(s, f.input))
        return fractionText(*v, locale);
    if (std::optional<qint64> *c = countOf(s, f.input))
        return *c ? Units::formatCount(**c, locale) : QString();
    if (std::optional<qint64> *b = sizeOf(s, f.input))
        return *b ? Units::formatIn(**b, Units::GiB, QStringLiteral("GiB"), 2) : QString();
    if (const std::optional<Small> n = smallOf(s, f.input))
        return *n->value != n->fallback ? Units::formatCount(*n->value, locale) : QString();
    if (f.input == Input::SchedulerPolicy)
        return s.engineSettings.schedulerPolicy != EngineSettings{}.schedulerPolicy ? SchedulerPolicies::name(s.engineSettings.schedulerPolicy) : QString();
    return {};
}

QString placeholder(const Scenario &s, const EngineSettingField &f, const QLocale &locale)
{
    if (f.version)
        return Engines::rule(s.engine).checkedVersion().text();
    switch (f.input) {
    case Input::GpuMemoryUtilization: return fractionText(Engines::defaultGpuMemoryUtilization, locale);
    case Input::FreeGpuMemoryFraction: return fractionText(EngineSettings{}.freeGpuMemoryFraction, locale);
    case Input::MemFractionStatic: {
        try {
            return QStringLiteral("%1 (SGLang's rule for this card and TP)").arg(fractionText(Sglang::defaultMemFractionStatic(s), locale));
        } catch (const InputError &) {
            return QStringLiteral("SGLang's rule for this card and TP");
        }
    }
    case Input::MaxModelLen:
        return s.model.maxPositionEmbeddings > 0
            ? QStringLiteral("max_position_embeddings: %1").arg(Units::formatCount(s.model.maxPositionEmbeddings, locale))
            : QStringLiteral("max_position_embeddings");
    case Input::MaxNumSeqs: return QStringLiteral("%1 (vLLM's default here)").arg(Units::formatCount(Vllm::maxNumSeqs(s), locale));
    case Input::MaxNumBatchedTokens: return QStringLiteral("%1 (vLLM's default here)").arg(Units::formatCount(Vllm::maxNumBatchedTokens(s), locale));
    case Input::MaxBatchSize: return Units::formatCount(Trtllm::defaultMaxBatchSize, locale);
    case Input::MaxNumTokens: return Units::formatCount(Trtllm::defaultMaxNumTokens, locale);
    case Input::MaxSeqLen: return QStringLiteral("max_model_len");
    case Input::SchedulerPolicy: return QStringLiteral("guaranteed-no-evict (or max-utilization)");
    case Input::MaxOutputTokens: return QStringLiteral("not known: each session at its own length");
    case Input::NCtx:
        return QStringLiteral("max_model_len, else %1")
            .arg(Units::formatCount(s.engine == Engine::Ollama ? Ollama::defaultContext : LlamaCpp::defaultContext, locale));
    case Input::KvCacheMemory: return QStringLiteral("from the rule (not pinned)");
    case Input::FreeMemoryBefore:
    case Input::FreeMemoryAfter: return QStringLiteral("not measured");
    case Input::ActivationPeak:
    case Input::NonTorch:
    case Input::CudaGraph: return QStringLiteral("estimated (not measured)");
    default: break;
    }
    Scenario copy = s;
    if (const std::optional<Small> n = smallOf(copy, f.input))
        return Units::formatCount(n->fallback, locale);
    return {};
}

Scenario withText(Scenario s, const EngineSettingField &f, const QString &typed, const QLocale &locale)
{
    const QString text = typed.trimmed();
    const QString field = flag(f);
    EngineSettings &e = s.engineSettings;
    if (f.version) {
        const std::optional<EngineVersion> v = text.isEmpty() ? std::nullopt : std::optional(EngineVersion::parse(text, field));
        if (s.engine == Engine::Vllm) {
            const EngineVersion in = v.value_or(Engines::rule(Engine::Vllm).checkedVersion());
            e.vllmMajor = in.major;
            e.vllmMinor = in.minor;
        } else {
            e.engineVersion = v;
        }
        return s;
    }
    if (const std::optional<RealInput> real = realOf(f.input)) {
        const std::optional<double> v = text.isEmpty() ? std::nullopt : std::optional(readReal(*real, text, field, locale));
        if (f.input == Input::GpuMemoryUtilization) {
            s.gpuMemoryUtilization = v.value_or(Engines::defaultGpuMemoryUtilization);
            s.gpuMemoryUtilizationGiven = bool(v);
        } else if (f.input == Input::MemFractionStatic) {
            e.memFractionStatic = v;
        } else {
            e.freeGpuMemoryFraction = v.value_or(EngineSettings{}.freeGpuMemoryFraction);
        }
        return s;
    }
    if (f.input == Input::SchedulerPolicy) {
        e.schedulerPolicy = text.isEmpty() ? EngineSettings{}.schedulerPolicy : SchedulerPolicies::parse(text, field);
        return s;
    }
    if (std::optional<qint64> *c = countOf(s, f.input)) {
        *c = text.isEmpty() ? std::nullopt : std::optional(Units::parseCount(text, field, 1, locale));
        return s;
    }
    if (std::optional<qint64> *b = sizeOf(s, f.input)) {
        const bool zero = f.input == Input::ActivationPeak || f.input == Input::NonTorch || f.input == Input::CudaGraph;
        *b = text.isEmpty() ? std::nullopt : std::optional(Units::parseSize(text, field, zero));
        return s;
    }
    if (const std::optional<Small> n = smallOf(s, f.input)) {
        if (text.isEmpty()) {
            *n->value = n->fallback;
            return s;
        }
        // The command line's rule for these: a whole number from 1 to 1,000,000.
        *n->value = InputRanges::small(Units::parseCount(text, field, 1, locale), field);
    }
    return s;
}

} // namespace Headroom::EngineSettingFields
