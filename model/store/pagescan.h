// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QStringList>
#include <QVector>

namespace Headroom {

/// Reads rows straight from the pages of an SQLite file that SQLite itself
/// can no longer walk (a damaged interior page, a truncated file), for
/// PresetStore's recovery. Follows the documented file format
/// (https://www.sqlite.org/fileformat2.html: the 100-byte header, b-tree
/// pages, cells, varints, records, overflow chains and the freelist); it
/// does not use or copy SQLite's own recovery code.
///
/// Every table leaf page (type 0x0D) that is not on the freelist is read;
/// each cell whose record holds exactly `columns` text values (UTF-8
/// databases only) is returned. Every offset is checked against the page
/// and the file, overflow chains are bounded by the page count, and a cell
/// that does not decode is skipped: the bytes may be anything.
namespace PageScan {

/// One cell read from a leaf page: its rowid and its text columns.
struct Row
{
    qint64 rowid = 0;
    QStringList values;
};

/// The rows of `file` (a whole SQLite database file) with `columns` text
/// columns, in page order. Empty when the header is not SQLite's, the text
/// encoding is not UTF-8, or nothing decodes.
QVector<Row> textRows(const QByteArray &file, int columns);

/// The keys of every index b-tree page (leaf 0x0A and interior 0x02, not on
/// the freelist) whose record is one text value and a rowid: what an index on
/// a TEXT column (e.g. a TEXT PRIMARY KEY's autoindex) still names when SQLite
/// cannot walk it or the table it points into. In page order; the same key may
/// come twice (an interior page repeats a leaf's key). Empty as textRows().
QVector<Row> indexTextKeys(const QByteArray &file);

/// The user_version stored in the header (offset 60), or -1 when `file` does
/// not start with an SQLite header.
int userVersion(const QByteArray &file);

/// How much of the database `file` holds against what its header says.
struct Extent
{
    qint64 pageSize = 0;    ///< bytes per page (header offset 16; 1 there means 65,536)
    qint64 headerPages = 0; ///< pages the header gives (offset 28), 0 when that figure is not valid
    qint64 wholePages = 0;  ///< whole pages the file holds (its length / page size, rounded down)
    /// Pages the header counts that are not there whole: a truncated file.
    qint64 missingPages() const { return headerPages > wholePages ? headerPages - wholePages : 0; }
};

/// The Extent of `file`. The header's page count is valid only when it is
/// nonzero and the change counter (offset 24) equals the version-valid-for
/// number (offset 92) (https://www.sqlite.org/fileformat2.html, 1.3.7, "In-header
/// database size"); otherwise headerPages is 0. All zero when `file` does not
/// start with an SQLite header or its page size is not one.
Extent extentOf(const QByteArray &file);

} // namespace PageScan

} // namespace Headroom
