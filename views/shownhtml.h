// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

QT_BEGIN_NAMESPACE
class QTextBrowser;
QT_END_NAMESPACE

/// Text as HTML shows it, and HTML set on a browser only when what it shows changes: a drag sets
/// the answer's labels and the derivation on every step, and QTextBrowser parses and lays the
/// whole document out anew each time it is set.
namespace Headroom::ShownHtml {

/// The text HTML shows for plain `text`: runs of spaces, tabs and line breaks folded into one
/// space, none at either end (no-break spaces kept, as QString::simplified would not).
QString asHtmlShows(const QString &text);

/// Sets `text` as the browser's HTML unless it shows it already: set again, QTextBrowser parses
/// and lays the whole document out anew on every step of a drag (the sources seldom change).
void setHtmlOnce(QTextBrowser *browser, const QString &text);

/// Shows `lines` (plain text) as the browser's numbered list. A drag changes the numbers within the
/// same lines: those blocks are rewritten in place (QTextCursor), so the document lays out and
/// repaints only them, where setHtml would parse, lay out and repaint the whole list on every step.
/// Any other change (another count of lines, plain text shown since) sets the HTML anew.
void showList(QTextBrowser *browser, const QStringList &lines);

/// Forgets what the browser shows (after plain text was set instead): the next HTML is set again.
void forget(QTextBrowser *browser);

} // namespace Headroom::ShownHtml
