// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "report/reporttext.h"
#include <QFont>
#include <QPalette>
#include <QString>
#include <QVector>

QT_BEGIN_NAMESPACE
class QChart;
class QPagedPaintDevice;
QT_END_NAMESPACE

namespace Headroom {

/// The report's pages as its sections write them, in order: blocks of HTML and charts. The
/// cursor holds what every page shares: the text's style sheet and the paper palette, the
/// header (title, Headroom version) and footer ("Page x of y") in an 8 pt font, the content
/// between them and the gap between blocks. paint() places the blocks: a block that does not
/// fit what is left of a page starts the next (with the heading before a chart), and then
/// each page's charts grow into what is left of it, so a page's layout is known only once
/// its last block is in.
class PageCursor
{
    HEADROOM_TR_CONTEXT(ReportWriter)
public:
    /// A block of the flowing layout: HTML, or a chart (or charts side by side) `share` of
    /// the content's height high.
    struct Block
    {
        QString html;
        QChart *chart = nullptr;
        double share = 0;
        bool newPage = false;
        QVector<QChart *> row; ///< charts side by side (the comparison)
        bool isChart() const { return chart || !row.isEmpty(); }
    };

    /// Adds a block of HTML; `newPage` starts a page with it.
    void text(const QString &html, bool newPage = false);
    /// Adds `chart` (owned by the caller, alive until paint()), `share` of the content high.
    void chart(QChart *chart, double share);
    /// Adds `charts` side by side in equal widths, `share` of the content high.
    void charts(const QVector<QChart *> &row, double share);

    /// Lays the blocks out on `device`'s pages and paints them, every page under the header
    /// with `title` and the footer. Returns false with *error when the device cannot be painted.
    bool paint(QPagedPaintDevice *device, const QString &title, QString *error) const;

    /// Paper is white whatever the desktop's theme: the report's text and charts are
    /// drawn in this light palette, never the window's (a dark desktop printed white
    /// headings on a white page and charts on black).
    static QPalette paper();
    /// Paper's type is the same whatever the desktop's font: the desktop's family at 9 pt, Qt's
    /// default size (qt6ct's larger desktop font made a 6-page report 8, its chart titles cut).
    static QFont paperFont();

private:
    QVector<Block> m_blocks;
};

} // namespace Headroom
