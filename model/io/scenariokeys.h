// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QStringList>

namespace Headroom {

/// The keys of a version-1 scenario file (ScenarioFile) that this Headroom does not read.
namespace ScenarioKeys {

/// The keys of `file` that ScenarioFile::toJson never writes, as dotted paths in the file's
/// order: "inputs.contxt_length", "model.groups[0].kv_head". Objects and lists of objects
/// (a model's "groups") are looked into; a version-0 file (a plan --json output) is not
/// meant for this.
QStringList unknown(const QJsonObject &file);

} // namespace ScenarioKeys

} // namespace Headroom
