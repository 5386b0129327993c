// SPDX-License-Identifier: GPL-3.0-or-later
#include "report/pagecursor.h"
#include "report/reporttext.h"

#include <QAbstractTextDocumentLayout>
#include <QChart>
#include <QCoreApplication>
#include <QGuiApplication>
#include <QGraphicsScene>
#include <QPagedPaintDevice>
#include <QPainter>
#include <QTextDocument>
#include <algorithm>
#include <memory>
#include <vector>

namespace Headroom {

namespace {

using ReportText::tr;
using Block = PageCursor::Block;

// Every page's frame in the device's pixels: the body (the page's paint rectangle, from 0, 0),
// a header and a footer each 4% of it high, the content between them (a header and a half
// below the top, a header and a half above the bottom), and the gap between blocks, 1.5% of
// the content's height.
struct PageFrame
{
    explicit PageFrame(const QPagedPaintDevice &device)
        : body(QPointF(0, 0), device.pageLayout().paintRectPixels(device.logicalDpiX()).size())
        , header(body.height() * 0.04)
        , content(0, header * 1.5, body.width(), body.height() - header * 3)
        , gap(content.height() * 0.015)
        , dpi(device.logicalDpiX())
    {
    }
    QRectF body;
    double header;
    QRectF content;
    double gap;
    double dpi;
};

// Paints `chart` into `target` as vector graphics. The chart is laid out at
// screen scale (96 dpi) and scaled to the device, so its fonts keep their
// proportions on a 144 dpi page.
void renderChart(QPainter &p, QChart *chart, const QRectF &target, double deviceDpi)
{
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setDropShadowEnabled(false);
    chart->setBackgroundRoundness(0);
    chart->setGeometry(QRectF(QPointF(0, 0), target.size() * (96.0 / deviceDpi)));
    QGraphicsScene *scene = chart->scene();
    std::unique_ptr<QGraphicsScene> own;
    if (!scene) {
        own = std::make_unique<QGraphicsScene>();
        own->addItem(chart);
        scene = own.get();
    }
    scene->render(&p, target, chart->sceneBoundingRect());
    if (own)
        own->removeItem(chart);
}

// The blocks measured on a device: each block's natural height in pixels (a text block its
// document's at the content's width, a chart its share of the content's height) and each
// text block's laid-out document (none for a chart).
struct Measured
{
    std::vector<std::unique_ptr<QTextDocument>> docs;
    QVector<double> natural;
};

Measured measure(const QVector<Block> &blocks, QPagedPaintDevice *device, const QRectF &content)
{
    Measured out;
    for (const Block &b : blocks) {
        double h = 0;
        if (b.isChart()) {
            h = content.height() * b.share;
            out.docs.push_back(nullptr);
        } else {
            auto doc = std::make_unique<QTextDocument>();
            doc->documentLayout()->setPaintDevice(device);
            doc->setDefaultFont(PageCursor::paperFont());
            doc->setDefaultStyleSheet(QStringLiteral("h1 { font-size: 18pt; } h2 { font-size: 13pt; } h3 { font-size: 11pt; } td { padding-right: 12px; }"));
            doc->setHtml(b.html);
            doc->setTextWidth(content.width());
            h = doc->size().height();
            out.docs.push_back(std::move(doc));
        }
        out.natural << h;
    }
    return out;
}

// How far the layout may grow a chart to fill the page it ends: up to twice its share of the
// page, at most 0.6 of it. A chart is never shrunk (Qt Charts elides its axis titles and labels
// below about 300 pixels at 96 dpi, a share of 0.3 on A4).
constexpr double kGrow = 2.0, kTallest = 0.6;

// Where the blocks stand: each block's page, its top on the page's content and its height.
struct Laid
{
    QVector<int> page;
    QVector<double> top, height;
};

// The page of each block, laid on pages of `room` pixels with `gap` between blocks at their
// `natural` heights: a block that does not fit what is left of a page (or that asks for a new
// page) starts the next, taking the text block before it when that is the heading of a chart
// (no heading at the foot of a page, its chart alone on the next).
QVector<int> breakPages(const QVector<Block> &blocks, const QVector<double> &natural, double room, double gap)
{
    const int n = int(blocks.size());
    QVector<int> page(n);
    int first = 0, current = 0; // blocks [first, i) are on page `current`
    double y = 0;
    for (int i = 0; i < n; ++i) {
        if (i > first && (blocks.at(i).newPage || y + natural.at(i) > room)) {
            int start = i;
            if (!blocks.at(i).newPage && blocks.at(i).isChart() && i - 1 > first && !blocks.at(i - 1).isChart()
                && natural.at(i - 1) + gap + natural.at(i) <= room)
                start = i - 1;
            ++current;
            first = start;
            y = 0;
            for (int k = start; k < i; ++k) {
                page[k] = current;
                y += natural.at(k) + gap;
            }
        }
        page[i] = current;
        y += natural.at(i) + gap;
    }
    return page;
}

// The blocks on their pages (breakPages) with each page's charts grown into what is left of
// it, by one factor up to kGrow and to at most kTallest of the room, so no page ends in white
// space below a small chart; tops from the page's top, `gap` between blocks.
Laid layBlocks(const QVector<Block> &blocks, const QVector<double> &natural, double room, double gap)
{
    const int n = int(blocks.size());
    Laid out;
    out.page = breakPages(blocks, natural, room, gap);
    out.top.resize(n);
    out.height = natural;
    for (int from = 0; from < n;) {
        int to = from;
        while (to + 1 < n && out.page.at(to + 1) == out.page.at(from))
            ++to;
        double texts = gap * (to - from), charts = 0;
        for (int k = from; k <= to; ++k)
            (blocks.at(k).isChart() ? charts : texts) += natural.at(k);
        const double factor = charts > 0 ? std::clamp((room - texts) / charts, 1.0, kGrow) : 1.0;
        double top = 0;
        for (int k = from; k <= to; ++k) {
            if (blocks.at(k).isChart())
                out.height[k] = std::max(natural.at(k), std::min(natural.at(k) * factor, room * kTallest));
            out.top[k] = top;
            top += out.height.at(k) + gap;
        }
        from = to + 1;
    }
    return out;
}

// Paints page `page` of `pages`' header (`title` at the left, the Headroom version at the
// right) and footer ("Page x of y") in `font`, dark grey; leaves the pen black.
void paintFrame(QPainter &painter, const PageFrame &frame, const QFont &font, const QString &title, int page, int pages)
{
    const QRectF &body = frame.body;
    painter.setFont(font);
    painter.setPen(Qt::darkGray);
    painter.drawText(QRectF(0, 0, body.width(), frame.header), Qt::AlignLeft | Qt::AlignVCenter, title);
    painter.drawText(QRectF(0, 0, body.width(), frame.header), Qt::AlignRight | Qt::AlignVCenter,
                     QStringLiteral("Headroom %1").arg(QCoreApplication::applicationVersion()));
    painter.drawText(QRectF(0, body.height() - frame.header, body.width(), frame.header), Qt::AlignCenter, ReportText::tr("Page %1 of %2").arg(page).arg(pages));
    painter.setPen(Qt::black);
}

// Paints block `b` into `target`: its chart, its charts side by side in equal widths, or its
// laid-out text `doc`, clipped to the target.
void paintBlock(QPainter &painter, const Block &b, const QTextDocument *doc, const QRectF &target, double dpi)
{
    if (b.chart) {
        renderChart(painter, b.chart, target, dpi);
    } else if (!b.row.isEmpty()) {
        for (int c = 0; c < b.row.size(); ++c)
            renderChart(painter, b.row.at(c),
                        QRectF(target.left() + target.width() * c / b.row.size(), target.top(), target.width() / b.row.size(), target.height()), dpi);
    } else {
        painter.save();
        painter.translate(target.topLeft());
        // As QTextDocument::drawContents, in the paper palette rather than the application's.
        QAbstractTextDocumentLayout::PaintContext ctx;
        ctx.palette = PageCursor::paper();
        ctx.clip = QRectF(0, 0, target.width(), target.height());
        painter.setClipRect(ctx.clip);
        doc->documentLayout()->draw(&painter, ctx);
        painter.restore();
    }
}

} // namespace

void PageCursor::text(const QString &html, bool newPage)
{
    m_blocks << Block{html, nullptr, 0, newPage, {}};
}

void PageCursor::chart(QChart *chart, double share)
{
    m_blocks << Block{QString(), chart, share, false, {}};
}

void PageCursor::charts(const QVector<QChart *> &row, double share)
{
    m_blocks << Block{QString(), nullptr, share, false, row};
}

bool PageCursor::paint(QPagedPaintDevice *device, const QString &title, QString *error) const
{
    QPainter painter;
    if (!painter.begin(device)) {
        *error = tr("cannot paint the report (is the file writable?)");
        return false;
    }
    const PageFrame frame(*device);
    const Measured measured = measure(m_blocks, device, frame.content);
    const Laid laid = layBlocks(m_blocks, measured.natural, frame.content.height(), frame.gap);
    const int pages = laid.page.isEmpty() ? 1 : laid.page.constLast() + 1;
    QFont small = PageCursor::paperFont();
    small.setPointSizeF(8);
    int painted = -1;
    for (int i = 0; i < m_blocks.size(); ++i) {
        while (painted < laid.page.at(i)) {
            if (painted >= 0)
                device->newPage();
            ++painted;
            paintFrame(painter, frame, small, title, painted + 1, pages);
        }
        const QRectF target(frame.content.left(), frame.content.top() + laid.top.at(i), frame.content.width(), laid.height.at(i));
        paintBlock(painter, m_blocks.at(i), measured.docs.at(std::size_t(i)).get(), target, frame.dpi);
    }
    painter.end();
    return true;
}

QFont PageCursor::paperFont()
{
    QFont f = QGuiApplication::font();
    f.setPointSizeF(9);
    return f;
}

QPalette PageCursor::paper()
{
    const QColor black(Qt::black), white(Qt::white);
    QPalette p(black, QColor(0xef, 0xef, 0xef), white, QColor(0x9f, 0x9f, 0x9f), QColor(0xb8, 0xb8, 0xb8), black, white, white, white);
    p.setColor(QPalette::AlternateBase, QColor(0xf5, 0xf5, 0xf5));
    p.setColor(QPalette::ToolTipBase, white);
    p.setColor(QPalette::ToolTipText, black);
    p.setColor(QPalette::PlaceholderText, QColor(0x70, 0x70, 0x70));
    p.setColor(QPalette::Highlight, QColor(0x30, 0x8c, 0xc6));
    p.setColor(QPalette::HighlightedText, white);
    p.setColor(QPalette::Link, QColor(0x00, 0x00, 0xee));
    return p;
}

} // namespace Headroom
