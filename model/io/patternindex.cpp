// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/patternindex.h"

namespace Headroom {

namespace {
// True when `lead` cannot be looked up by its first two characters (fewer, or not ASCII).
bool alwaysTried(const QString &lead)
{
    return lead.size() < 2 || lead.at(0).unicode() >= 128 || lead.at(1).unicode() >= 128;
}
} // namespace

PatternIndex::PatternIndex(const QVector<LogPattern> &patterns)
    : m_byPair(1), m_pairEntry(128 * 128, 0), m_candidate(size_t(patterns.size()))
{
    for (qsizetype k = 0; k < patterns.size(); ++k) {
        const QString lead = LogParse::leadingText(patterns.at(k).re.pattern()).toLower();
        m_leads << lead;
        if (alwaysTried(lead))
            continue;
        quint16 &entry = m_pairEntry[size_t(lead.at(0).unicode() * 128 + lead.at(1).unicode())];
        if (entry == 0) {
            entry = quint16(m_byPair.size());
            m_byPair.emplace_back();
        }
        m_byPair[entry].push_back(int(k));
    }
}

const std::vector<bool> &PatternIndex::candidates(QStringView line)
{
    // Lower case as the expressions compare without case: ASCII, and the two other
    // characters whose case partner is ASCII (U+212A Kelvin sign: k, U+017F long s: s).
    m_folded.resize(line.size());
    QChar *out = m_folded.data();
    for (const QChar c : line) {
        const char16_t u = c.unicode();
        *out++ = QChar(u >= u'A' && u <= u'Z' ? char16_t(u + 32) : u == 0x212A ? u'k' : u == 0x017F ? u's' : u);
    }
    for (qsizetype k = 0; k < m_leads.size(); ++k)
        m_candidate[size_t(k)] = alwaysTried(m_leads.at(k));
    const QStringView view(m_folded);
    for (qsizetype j = 0; j + 1 < view.size(); ++j) {
        const char16_t a = view.at(j).unicode(), b = view.at(j + 1).unicode();
        if (a >= 128 || b >= 128)
            continue;
        if (const quint16 entry = m_pairEntry[size_t(a * 128 + b)])
            for (const int k : m_byPair[entry])
                if (!m_candidate[size_t(k)] && view.sliced(j).startsWith(m_leads.at(k)))
                    m_candidate[size_t(k)] = true;
    }
    return m_candidate;
}

} // namespace Headroom
