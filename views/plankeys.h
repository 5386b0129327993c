// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QKeyEvent>
#include <QKeySequence>
#include <QLineEdit>

namespace Headroom {

/// Whether `key`, pressed in `widget`, is the plan's Ctrl+Z / Ctrl+Shift+Z (undo or redo of the
/// scenario) rather than the widget's own: true for those keys unless a text field (a line edit,
/// or the one inside a spin box or combo box) has typed text of its own to undo or redo. The
/// main window and the engine settings dialog take the keys alike.
inline bool isPlanUndoKey(QWidget *widget, const QKeyEvent *key)
{
    const bool undo = key->matches(QKeySequence::Undo), redo = key->matches(QKeySequence::Redo);
    if (!undo && !redo)
        return false;
    auto *edit = qobject_cast<QLineEdit *>(widget);
    if (!edit && (qobject_cast<QAbstractSpinBox *>(widget) || qobject_cast<QComboBox *>(widget)))
        edit = widget->findChild<QLineEdit *>();
    const bool editing = edit && !edit->isReadOnly();
    return !(editing && (undo ? edit->isUndoAvailable() : edit->isRedoAvailable()));
}

} // namespace Headroom
