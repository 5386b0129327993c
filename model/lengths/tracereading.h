// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "lengths/lengthdistribution.h"

namespace Headroom {

struct TrafficTrace;

/// Reads the trace at `path` (every format LengthDistribution::fromTrace names) into its
/// length distribution, refusing a file above `maxBytes`. When `collect` is given, every
/// request of a JSON-lines trace (of every format when `everyFormat`) is also appended to
/// it as read: arrival (seconds as the file gives them, NaN without one), prompt, output,
/// line, prefix blocks (hash_ids) and named conversation; `collect->blockTokens` must be set.
/// Throws InputError(field) naming the file, line and field of the first fault.
LengthDistribution readTraceFile(const QString &path, const QString &field, qint64 maxBytes, TrafficTrace *collect, bool everyFormat);

/// `d`'s lengths made per conversation of `traffic` (as read by readTraceFile): each
/// conversation weighs once at its longest request (prompt + output), less the shared prefix,
/// which `d.sharedPrefixTokens` then holds (held once per card); `d.conversations` is set.
/// Builds the conversations (TrafficTrace::buildConversations).
void lengthsPerConversation(TrafficTrace &traffic, LengthDistribution &d);

} // namespace Headroom
