// SPDX-License-Identifier: GPL-3.0-or-later
#include "pagescan.h"

#include <QSet>
#include <optional>

namespace Headroom::PageScan {

namespace {

// Offsets and rules below are from https://www.sqlite.org/fileformat2.html
// (sections 1.3 "The Database Header", 1.5 "B-tree Pages", 1.6 "Cell Payload
// Overflow Pages", 2.1 "Record Format").
constexpr char magic[] = "SQLite format 3";

quint32 be32(const QByteArray &b, qint64 at)
{
    return (quint32(quint8(b.at(at))) << 24) | (quint32(quint8(b.at(at + 1))) << 16) | (quint32(quint8(b.at(at + 2))) << 8)
         | quint32(quint8(b.at(at + 3)));
}

quint32 be16(const QByteArray &b, qint64 at)
{
    return (quint32(quint8(b.at(at))) << 8) | quint32(quint8(b.at(at + 1)));
}

// A varint at `at`, read no further than `end`: 1 to 9 bytes, big-endian,
// 7 bits a byte with the high bit set on all but the last; the ninth byte
// gives all 8 bits. Advances `at`.
std::optional<quint64> varint(const QByteArray &b, qint64 &at, qint64 end)
{
    quint64 v = 0;
    for (int i = 0; i < 9; ++i) {
        if (at >= end)
            return std::nullopt;
        const quint8 byte = quint8(b.at(at++));
        if (i == 8)
            return (v << 8) | byte;
        v = (v << 7) | (byte & 0x7f);
        if (!(byte & 0x80))
            return v;
    }
    return std::nullopt;
}

struct Layout
{
    qint64 pageSize = 0;
    qint64 usable = 0; // page size less the reserved bytes at the end of each page
    qint64 pages = 0;  // whole pages present in the file
};

std::optional<Layout> layoutOf(const QByteArray &file)
{
    if (file.size() < 100 || !file.startsWith(QByteArray(magic, sizeof magic)))
        return std::nullopt;
    Layout l;
    const quint32 size = be16(file, 16);
    l.pageSize = size == 1 ? 65536 : size;
    if (l.pageSize < 512 || l.pageSize > 65536 || (l.pageSize & (l.pageSize - 1)) != 0)
        return std::nullopt;
    l.usable = l.pageSize - quint8(file.at(20));
    if (l.usable < 480)
        return std::nullopt;
    l.pages = file.size() / l.pageSize;
    return l;
}

// Pages on the freelist: not part of any table, though their bytes may still hold old rows.
QSet<qint64> freePages(const QByteArray &file, const Layout &l)
{
    QSet<qint64> out;
    QSet<qint64> trunks;
    for (qint64 trunk = be32(file, 32); trunk >= 1 && trunk <= l.pages && !trunks.contains(trunk);) {
        trunks.insert(trunk);
        out.insert(trunk);
        const qint64 base = (trunk - 1) * l.pageSize;
        const qint64 leaves = std::min<qint64>(be32(file, base + 4), l.usable / 4 - 2);
        for (qint64 i = 0; i < leaves; ++i)
            out.insert(be32(file, base + 8 + 4 * i));
        trunk = be32(file, base);
    }
    return out;
}

// The whole payload of a cell: `local` bytes at `at`, then the overflow chain. The most a
// cell keeps on its page is U - 35 on a table leaf, ((U - 12) x 64 / 255) - 23 on an index
// page (section 1.6).
std::optional<QByteArray> payload(const QByteArray &file, const Layout &l, qint64 at, qint64 end, quint64 size, bool index = false)
{
    const qint64 max = index ? ((l.usable - 12) * 64 / 255) - 23 : l.usable - 35;
    qint64 local = qint64(size);
    if (qint64(size) > max) {
        const qint64 m = ((l.usable - 12) * 32 / 255) - 23;
        const qint64 k = m + ((qint64(size) - m) % (l.usable - 4));
        local = k <= max ? k : m;
    }
    if (at + local > end)
        return std::nullopt;
    QByteArray out = file.mid(at, local);
    if (qint64(size) == local)
        return out;
    if (at + local + 4 > end)
        return std::nullopt;
    QSet<qint64> visited;
    for (qint64 page = be32(file, at + local); out.size() < qint64(size);) {
        if (page < 1 || page > l.pages || visited.contains(page))
            return std::nullopt;
        visited.insert(page);
        const qint64 base = (page - 1) * l.pageSize;
        out += file.mid(base + 4, std::min<qint64>(l.usable - 4, qint64(size) - out.size()));
        page = be32(file, base);
    }
    return out;
}

// The record's values when every one of them is text; nullopt otherwise.
std::optional<QStringList> textRecord(const QByteArray &record, int columns)
{
    qint64 at = 0;
    const auto headerSize = varint(record, at, record.size());
    if (!headerSize || *headerSize > quint64(record.size()))
        return std::nullopt;
    QVector<qint64> lengths;
    while (at < qint64(*headerSize)) {
        const auto type = varint(record, at, qint64(*headerSize));
        if (!type || *type < 13 || *type % 2 == 0 || lengths.size() == columns || (*type - 13) / 2 > quint64(record.size()))
            return std::nullopt; // not text, more columns than expected, or longer than the record
        lengths << qint64((*type - 13) / 2);
    }
    if (lengths.size() != columns)
        return std::nullopt;
    QStringList values;
    qint64 body = qint64(*headerSize);
    for (const qint64 n : lengths) {
        if (n > record.size() - body)
            return std::nullopt;
        values << QString::fromUtf8(record.constData() + body, n);
        body += n;
    }
    return values;
}

// A record of one text value and one integer (serial types 1 to 6, 8, 9; section 2.1):
// an index entry on a TEXT column, the integer being the table row's rowid.
std::optional<Row> textKeyRecord(const QByteArray &record)
{
    qint64 at = 0;
    const auto headerSize = varint(record, at, record.size());
    if (!headerSize || *headerSize > quint64(record.size()))
        return std::nullopt;
    const auto text = varint(record, at, qint64(*headerSize));
    const auto integer = varint(record, at, qint64(*headerSize));
    if (!text || !integer || at != qint64(*headerSize) || *text < 13 || *text % 2 == 0 || *integer == 7 || *integer > 9 || *integer == 0)
        return std::nullopt;
    const qint64 n = qint64((*text - 13) / 2);
    static constexpr int widths[] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};
    const int width = widths[*integer];
    if ((*text - 13) / 2 > quint64(record.size()) || qint64(*headerSize) + n + width != record.size())
        return std::nullopt;
    Row row;
    row.values << QString::fromUtf8(record.constData() + *headerSize, n);
    if (*integer == 8 || *integer == 9) {
        row.rowid = *integer == 8 ? 0 : 1;
    } else {
        qint64 v = qint8(record.at(qint64(*headerSize) + n)); // big-endian two's complement
        for (int i = 1; i < width; ++i)
            v = qint64(quint64(v) << 8) | quint8(record.at(qint64(*headerSize) + n + i));
        row.rowid = v;
    }
    return row;
}

} // namespace

QVector<Row> indexTextKeys(const QByteArray &file)
{
    QVector<Row> keys;
    const auto l = layoutOf(file);
    if (!l || be32(file, 56) != 1) // 1: UTF-8
        return keys;
    const QSet<qint64> freed = freePages(file, *l);
    for (qint64 page = 1; page <= l->pages; ++page) {
        if (freed.contains(page))
            continue;
        const qint64 start = (page - 1) * l->pageSize;
        const qint64 header = start + (page == 1 ? 100 : 0);
        const qint64 end = start + l->usable;
        const quint8 type = quint8(file.at(header));
        if (type != 0x0a && type != 0x02) // an index b-tree leaf or interior page
            continue;
        const qint64 first = header + (type == 0x02 ? 12 : 8); // interior pages add a right-most pointer
        const qint64 cells = be16(file, header + 3);
        for (qint64 i = 0; i < cells; ++i) {
            const qint64 pointer = first + 2 * i;
            if (pointer + 2 > end)
                break;
            qint64 at = start + be16(file, pointer) + (type == 0x02 ? 4 : 0); // past the left child's page number
            if (at < first || at >= end)
                continue;
            const auto size = varint(file, at, end);
            if (!size || *size > quint64(file.size()))
                continue;
            const auto bytes = payload(file, *l, at, end, *size, true);
            if (!bytes)
                continue;
            if (auto row = textKeyRecord(*bytes))
                keys.append(*row);
        }
    }
    return keys;
}

Extent extentOf(const QByteArray &file)
{
    const std::optional<Layout> l = layoutOf(file);
    if (!l)
        return {};
    Extent e;
    e.pageSize = l->pageSize;
    e.wholePages = l->pages;
    if (be32(file, 24) == be32(file, 92))
        e.headerPages = be32(file, 28);
    return e;
}

int userVersion(const QByteArray &file)
{
    if (file.size() < 100 || !file.startsWith(QByteArray(magic, sizeof magic)))
        return -1;
    return int(be32(file, 60));
}

QVector<Row> textRows(const QByteArray &file, int columns)
{
    QVector<Row> rows;
    const auto l = layoutOf(file);
    if (!l || be32(file, 56) != 1) // 1: UTF-8
        return rows;
    const QSet<qint64> freed = freePages(file, *l);
    for (qint64 page = 1; page <= l->pages; ++page) {
        if (freed.contains(page))
            continue;
        const qint64 start = (page - 1) * l->pageSize;
        const qint64 header = start + (page == 1 ? 100 : 0); // page 1 begins with the file header
        const qint64 end = start + l->usable;
        if (quint8(file.at(header)) != 0x0d) // a table b-tree leaf
            continue;
        const qint64 cells = be16(file, header + 3);
        for (qint64 i = 0; i < cells; ++i) {
            const qint64 pointer = header + 8 + 2 * i;
            if (pointer + 2 > end)
                break;
            qint64 at = start + be16(file, pointer);
            if (at < header + 8 || at >= end)
                continue;
            const auto size = varint(file, at, end);
            const auto rowid = varint(file, at, end);
            if (!size || !rowid || *size > quint64(file.size()))
                continue;
            const auto bytes = payload(file, *l, at, end, *size);
            if (!bytes)
                continue;
            if (auto values = textRecord(*bytes, columns))
                rows.append({qint64(*rowid), *values});
        }
    }
    return rows;
}

} // namespace Headroom::PageScan
