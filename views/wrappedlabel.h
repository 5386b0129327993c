// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLabel>
#include <QPair>
#include <QVector>

namespace Headroom {

/// A word-wrapped QLabel that remembers its height for the last few widths until its text, font or
/// style changes. QLabel::heightForWidth lays the whole text out again on every call (a rich text
/// one through QTextDocument::setTextWidth, which lays out even at the same width), and one
/// changed figure has the answer's layout and its scroll area ask each label several times at the
/// same widths (QBoxLayout asks heightForWidth and minimumHeightForWidth, uncached, per width).
/// The answer is QLabel's own: the first call at a width computes it.
class WrappedLabel : public QLabel
{
public:
    WrappedLabel();
    /// QLabel's height at `width` pixels, from the cache when this text was measured at it.
    int heightForWidth(int width) const override;

protected:
    void changeEvent(QEvent *event) override;

private:
    mutable QString m_cachedText;             ///< the text m_cached holds heights for
    mutable QVector<QPair<int, int>> m_cached; ///< (width, height) in pixels, oldest first
};

/// A WrappedLabel whose text the mouse selects, laid out as a plain label until then. A selectable
/// QLabel keeps even plain text in a QTextDocument and lays it out twice for every size asked (the
/// width set, then restored: QLabelPrivate::sizeForWidth), several times per step of a drag, and
/// each layout marks the whole label for repainting; a plain one measures it with QFontMetrics.
/// The first press makes the label selectable (and gives it the focus, for Ctrl+C); losing the
/// focus with nothing selected makes it plain again.
class SelectableLabel : public WrappedLabel
{
protected:
    void mousePressEvent(QMouseEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;
};

} // namespace Headroom
