// SPDX-License-Identifier: GPL-3.0-or-later
#include "wrappedlabel.h"

#include <QEvent>

namespace Headroom {

WrappedLabel::WrappedLabel()
{
    setWordWrap(true);
}

int WrappedLabel::heightForWidth(int width) const
{
    if (text() != m_cachedText) {
        m_cachedText = text();
        m_cached.clear();
    }
    for (const QPair<int, int> &c : std::as_const(m_cached))
        if (c.first == width)
            return c.second;
    const int height = QLabel::heightForWidth(width);
    if (m_cached.size() == 4)
        m_cached.removeFirst();
    m_cached.append(qMakePair(width, height));
    return height;
}

void WrappedLabel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange || event->type() == QEvent::LayoutDirectionChange)
        m_cached.clear();
    QLabel::changeEvent(event);
}

void SelectableLabel::mousePressEvent(QMouseEvent *event)
{
    if (!(textInteractionFlags() & Qt::TextSelectableByMouse)) {
        setTextInteractionFlags(Qt::TextSelectableByMouse);
        setFocus(Qt::MouseFocusReason);
    }
    WrappedLabel::mousePressEvent(event);
}

void SelectableLabel::focusOutEvent(QFocusEvent *event)
{
    WrappedLabel::focusOutEvent(event); // clears the selection, unless a menu or another window took the focus
    if (!hasSelectedText())
        setTextInteractionFlags(Qt::LinksAccessibleByMouse); // QLabel's default
}

} // namespace Headroom
