// SPDX-License-Identifier: GPL-3.0-or-later
#include "shownhtml.h"

#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QVariant>

namespace Headroom::ShownHtml {

namespace {
const char *const kShown = "headroomShownHtml";   // cleared where plain text is set instead (forget)
const char *const kLines = "headroomShownLines"; // likewise
} // namespace

QString asHtmlShows(const QString &text)
{
    QString shown;
    bool space = false;
    for (const QChar c : text) {
        if (c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\n') || c == QLatin1Char('\r')) {
            space = !shown.isEmpty();
            continue;
        }
        if (space)
            shown += QLatin1Char(' ');
        space = false;
        shown += c;
    }
    return shown;
}

void setHtmlOnce(QTextBrowser *browser, const QString &text)
{
    if (browser->property(kShown).toString() == text && !text.isEmpty())
        return;
    browser->setHtml(text);
    browser->setProperty(kShown, text);
}

void showList(QTextBrowser *browser, const QStringList &lines)
{
    QString list = QStringLiteral("<ol>");
    for (const QString &line : lines)
        list += QStringLiteral("<li>%1</li>").arg(line.toHtmlEscaped());
    list += QStringLiteral("</ol>");
    QStringList texts;
    for (const QString &line : lines)
        texts << asHtmlShows(line);
    const QStringList shown = browser->property(kLines).toStringList();
    QTextDocument *doc = browser->document();
    if (texts.isEmpty() || shown.size() != texts.size() || doc->blockCount() != texts.size()) {
        setHtmlOnce(browser, list);
        // Edited in place next time only when each block shows its line exactly.
        bool same = doc->blockCount() == texts.size();
        QTextBlock block = doc->begin();
        for (int i = 0; same && i < texts.size(); ++i, block = block.next())
            same = block.text() == texts.at(i);
        browser->setProperty(kLines, same ? QVariant(texts) : QVariant());
        return;
    }
    doc->setUndoRedoEnabled(false); // a read-only view: no history grows along a drag
    QTextCursor cursor(doc);
    cursor.beginEditBlock();
    QTextBlock block = doc->begin();
    for (int i = 0; i < texts.size(); ++i, block = block.next())
        if (texts.at(i) != shown.at(i)) {
            cursor.setPosition(block.position());
            cursor.setPosition(block.position() + block.length() - 1, QTextCursor::KeepAnchor);
            cursor.insertText(texts.at(i));
        }
    cursor.endEditBlock();
    browser->setProperty(kLines, texts);
    browser->setProperty(kShown, list); // what setHtmlOnce would have set
}

void forget(QTextBrowser *browser)
{
    browser->setProperty(kShown, QVariant());
    browser->setProperty(kLines, QVariant());
}

} // namespace Headroom::ShownHtml
