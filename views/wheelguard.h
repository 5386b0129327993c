// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

QT_BEGIN_NAMESPACE
class QWidget;
QT_END_NAMESPACE

namespace Headroom {

/// One rule for every window of the application: a spin box, picker (combo box) or slider
/// changes with the mouse wheel only while it has the keyboard focus. A wheel turned over one
/// without the focus goes on to its parents, so the page under the pointer scrolls past it
/// (issue 31: scrolling Lengths and risk moved the risk from 1e-2 to 5e-2 unnoticed). Such an
/// input takes the focus by Tab or a click only (Qt::StrongFocus, never Qt::WheelFocus), so the
/// wheel cannot give it the focus either. Scroll bars scroll as before.
class WheelGuard : public QObject
{
public:
    /// Installs the guard as an event filter of the application, once (later calls do nothing).
    /// Needs a QApplication.
    static void install();
    /// True when `widget` is an input the guard keeps from an unfocused wheel: a spin box, a
    /// combo box or a slider other than a scroll bar.
    static bool guards(const QWidget *widget);

protected:
    /// Polish: a guarded input's Qt::WheelFocus becomes Qt::StrongFocus. Wheel: ignored and
    /// passed to the parent when the input has no focus.
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    using QObject::QObject;
};

} // namespace Headroom
