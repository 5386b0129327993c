// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace Headroom {

/// A preset's source text read in two parts: what a reader cites (the publication) and how
/// the value was checked (the stored copies compared, what was not re-read). Presets write
/// them as one text, the publication first, then the checks after the first "; " or ". "
/// that stands outside parentheses ("NVIDIA A10 datasheet (600 GB/s; BF16 ...); stored ..."
/// keeps its parenthesis whole). The window's Sources and the report's appendix show the
/// publication; the checks go under "how each value was checked".
namespace Citation {

/// The publication: `source` up to its first top-level "; " or ". ", trimmed; all of it when
/// there is none. "https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json; checked
/// against ..." -> "https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json".
QString publication(const QString &source);

/// The rest: how the value was checked, trimmed; empty when the source is a publication only.
QString checks(const QString &source);

} // namespace Citation
} // namespace Headroom
