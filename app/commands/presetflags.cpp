// SPDX-License-Identifier: GPL-3.0-or-later
#include "commands/presetflags.h"

#include "commands/options.h"
#include "core/inputerror.h"
#include "core/units.h"
#include "kv/gpuspec.h"
#include "presetstore.h"

namespace Headroom {

namespace {

/// The presets subcommands' field flags: flag, preset JSON field, kind it
/// applies to (empty: both) and how its value is read.
enum class PresetValue { Text, Size, Rate, Count, Number, Formats };
struct PresetFlag
{
    const char *flag;
    const char *field;
    const char *kind;
    PresetValue type;
    const char *help;
    const char *valueName;
};
const PresetFlag presetFlags[] = {
    {"name", "name", "", PresetValue::Text, "presets add/edit: the display name.", "TEXT"},
    {"source", "source", "", PresetValue::Text, "presets add/edit: where the figures come from.", "TEXT"},
    {"source-date", "source_date", "", PresetValue::Text, "presets add/edit: date of the source, YYYY-MM-DD.", "DATE"},
    {"notes", "notes", "", PresetValue::Text, "presets add/edit: free notes.", "TEXT"},
    {"vendor", "vendor", "gpu", PresetValue::Text, "presets add/edit (GPU): the vendor.", "TEXT"},
    {"memory", "memory_bytes", "gpu", PresetValue::Size, "presets add/edit (GPU): memory per card as the driver reports it: 81559MiB, 80GB "
                                                         "(a new figure drops torch_memory_bytes, which was measured with the old one).", "SIZE"},
    {"memory-source", "memory_source", "gpu", PresetValue::Text, "presets add/edit (GPU): where the memory figure comes from.", "TEXT"},
    {"marketed-memory", "marketed_memory", "gpu", PresetValue::Text, "presets add/edit (GPU): memory as marketed, e.g. \"80 GB HBM3\".", "TEXT"},
    {"bandwidth", "bandwidth_bytes_per_s", "gpu", PresetValue::Rate, "presets add/edit (GPU): memory bandwidth per second: 3.35TB/s.", "SIZE/s"},
    {"tflops", "bf16_dense_tflops", "gpu", PresetValue::Number, "presets add/edit (GPU): dense BF16 TFLOPS (no sparsity).", "F"},
    {"native-formats", "native_formats", "gpu", PresetValue::Formats, "presets add/edit (GPU): the formats the tensor cores run natively, "
                                                                      "e.g. \"bf16,fp16,fp8,int8\" (left out: not stated, restricts no lever).", "LIST"},
    {"native-formats-source", "native_formats_source", "gpu", PresetValue::Text, "presets add/edit (GPU): the whitepaper or datasheet listing them.", "TEXT"},
    {"host-link", "host_link", "gpu", PresetValue::Text, "presets add/edit (GPU): the host link, e.g. \"PCIe 5.0 x16\".", "TEXT"},
    {"host-link-bandwidth", "host_link_bytes_per_s", "gpu", PresetValue::Rate, "presets add/edit (GPU): host link bandwidth, one direction: 64GB/s.", "SIZE/s"},
    {"peer-link", "peer_link", "gpu", PresetValue::Text, "presets add/edit (GPU): the GPU-to-GPU link, e.g. \"NVLink 4\".", "TEXT"},
    {"peer-link-bandwidth", "peer_link_bytes_per_s", "gpu", PresetValue::Rate, "presets add/edit (GPU): GPU-to-GPU link bandwidth, one direction: 450GB/s (left out: the collectives cross the host link).", "SIZE/s"},
    {"price", "price_usd_per_hour", "gpu", PresetValue::Number, nullptr, nullptr}, // the plan flag, read the same way
    {"price-source", "price_source", "gpu", PresetValue::Text, "presets add/edit (GPU): where the price comes from (a contract, a quote).", "TEXT"},
    {"price-date", "price_date", "gpu", PresetValue::Text, "presets add/edit (GPU): date of the price, YYYY-MM-DD.", "DATE"},
    {"hf-id", "hf_id", "model", PresetValue::Text, "presets add/edit (model): the HuggingFace repository id.", "ORG/NAME"},
    {"params", "total_params", "model", PresetValue::Count, nullptr, nullptr}, // the plan flag
    {"active-params", "active_params", "model", PresetValue::Count, "presets add/edit (model): parameters active per token (MoE).", "N"},
    {"params-source", "params_source", "model", PresetValue::Text, "presets add/edit (model): where the parameter count comes from.", "TEXT"},
    {"checkpoint", "checkpoint_bytes", "model", PresetValue::Size, "presets add/edit (model): size of the published checkpoint.", "SIZE"},
};

} // namespace

void addPresetOptions(QCommandLineParser &p)
{
    for (const PresetFlag &f : presetFlags)
        if (f.help)
            p.addOption(opt(f.flag, f.help, f.valueName));
    p.addOptions({
        opt("config", "presets add/edit (model): the HuggingFace config.json (or a model preset file) giving the shape.", "PATH"),
        opt("from", "presets add: start from a copy of preset ID (a built-in or yours), then apply the flags.", "ID"),
        opt("clear", "presets edit: remove an optional field (flag or JSON name; --clear price: no published price).", "FIELD"),
        opt("replace", "presets import: overwrite your presets with the same ids (the old ones go to a backup bundle)."),
    });
}

bool applyPresetFlags(const QCommandLineParser &p, const QString &kind, QJsonObject &preset)
{
    bool changed = false;
    for (const PresetFlag &f : presetFlags) {
        if (!isSet(p, f.flag))
            continue;
        const QString flag = QStringLiteral("--") + QString::fromLatin1(f.flag);
        if (*f.kind && kind != QLatin1String(f.kind))
            throw InputError(flag, QStringLiteral("applies to %1 presets only").arg(QLatin1String(f.kind)));
        const QString v = value(p, f.flag);
        QJsonValue j;
        switch (f.type) {
        case PresetValue::Text: j = v; break;
        case PresetValue::Size: j = QJsonValue(Units::parseSize(v, flag)); break; // qint64, kept exact
        case PresetValue::Rate: {
            QString size = v.trimmed();
            if (size.endsWith(QLatin1String("/s")))
                size.chop(2);
            j = QJsonValue(Units::parseSize(size, flag));
            break;
        }
        case PresetValue::Count: j = QJsonValue(Units::parseCount(v, flag)); break;
        case PresetValue::Number: j = Units::parseFraction(v, flag, 0, 1e6); break; // TFLOPS or dollars, in (0, 10^6]
        case PresetValue::Formats: j = GpuSpec::formatsFromText(v, flag); break;
        }
        // torch's total (torch_memory_bytes) was measured on the card as it was: a new memory
        // figure makes it stale, and above the new figure a preset the store refuses.
        if (QLatin1String(f.field) == QLatin1String("memory_bytes") && preset.value(QLatin1String(f.field)) != j) {
            preset.remove(QStringLiteral("torch_memory_bytes"));
            preset.remove(QStringLiteral("torch_memory_source"));
        }
        preset.insert(QLatin1String(f.field), j);
        changed = true;
    }
    if (isSet(p, "config")) {
        if (kind != QLatin1String("model"))
            throw InputError(QStringLiteral("--config"), QStringLiteral("applies to model presets only"));
        const QJsonObject read = PresetStore::modelPresetFromFile(value(p, "config"), QStringLiteral("--config"));
        preset.insert(QStringLiteral("config"), read.value(QStringLiteral("config")));
        if (!preset.contains(QStringLiteral("source")))
            preset.insert(QStringLiteral("source"), read.value(QStringLiteral("source")));
        if (!preset.contains(QStringLiteral("name")) && read.contains(QStringLiteral("name")))
            preset.insert(QStringLiteral("name"), read.value(QStringLiteral("name")));
        changed = true;
    }
    return changed;
}

void validateFromFlags(const QJsonObject &preset)
{
    try {
        PresetStore::validate(preset);
    } catch (const InputError &e) {
        for (const PresetFlag &f : presetFlags)
            if (e.field() == QLatin1String(f.field))
                throw InputError(QStringLiteral("--") + QString::fromLatin1(f.flag), e.message());
        throw;
    }
}

QString presetFieldNamed(const QString &name)
{
    for (const PresetFlag &f : presetFlags)
        if (name == QLatin1String(f.flag) || name == QStringLiteral("--") + QLatin1String(f.flag))
            return QString::fromLatin1(f.field);
    return name;
}

bool refusePresetFieldFlags(const QCommandLineParser &p, const QString &command, QTextStream &err)
{
    for (const PresetFlag &f : presetFlags)
        if (f.help && p.isSet(QString::fromLatin1(f.flag)) && command != QLatin1String("presets")) {
            err << "error: --" << f.flag << ": only `headroom presets add/edit` reads it, not " << command << '\n';
            return false;
        }
    return true;
}

} // namespace Headroom
