// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/inputranges.h"
#include "inputs/scenario.h"

#include <QLocale>
#include <QString>
#include <QVector>

namespace Headroom {

/// One engine setting a person edits as text (the window's engine settings, the calibrate
/// dialog): an input of core/inputranges.h, or the engine's release (which has no Input).
struct EngineSettingField
{
    /// The setting; ignored when `version` is true.
    Input input = Input::MaxModelLen;
    /// True for the engine's release (--engine-version, vLLM's --vllm-version).
    bool version = false;
    bool operator==(const EngineSettingField &o) const { return version == o.version && (version || input == o.input); }
};

/// The engine settings the command line takes, as text: which apply to an engine, each one's
/// label (its flag, so the window and --help name it alike), its value as typed (empty: the
/// default in force), the default as a placeholder, and the reading of typed text under the
/// same rule as the flag (core/inputranges.h for the fractions, Units::parseCount for counts,
/// Units::parseSize for sizes, EngineVersion::parse for a release).
namespace EngineSettingFields {

/// The settings engine `e` reads, in the order a person sets them: the engine's own settings
/// (EngineRule::settings: its memory fraction first, then its limits, then the measured terms),
/// max_model_len (every engine but llama.cpp and Ollama, which size by n_ctx), the block size
/// (the plain rule, vLLM and SGLang; TensorRT-LLM has its tokens per block) and the release
/// (every engine with a checked release: not llama.cpp, which numbers builds).
QVector<EngineSettingField> of(Engine e);
/// The flag that sets `f` ("--gpu-memory-utilization", "--engine-version").
QString flag(const EngineSettingField &f);
/// The value `s` holds for `f` as text in `locale` (counts grouped, sizes in GiB with 2 decimals
/// and the exact bytes, fractions as typed), or empty when `s` leaves it at its default.
QString text(const Scenario &s, const EngineSettingField &f, const QLocale &locale);
/// The default in force for `f` under `s`, in words for a placeholder: "0.9", "256 (vLLM's
/// default on this card)", "max_position_embeddings: 131,072", "estimated".
QString placeholder(const Scenario &s, const EngineSettingField &f, const QLocale &locale);
/// `s` with `f` set from `typed` (empty text: back to the default), read in `locale` then in the
/// command line's forms. Throws InputError naming the flag, with the rule, for text it refuses.
Scenario withText(Scenario s, const EngineSettingField &f, const QString &typed, const QLocale &locale);

} // namespace EngineSettingFields
} // namespace Headroom
