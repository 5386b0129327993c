// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <exception>

namespace Headroom {

/// An input the engine cannot use: a zero or negative count, an unknown unit or
/// preset, a malformed config.json field, a product that overflows 64 bits.
/// field() names the offending input as the user spelled it (a command-line
/// flag, a config.json key or a scenario field); message() is one sentence a
/// person can act on. Thrown inside model/ and caught at the API boundary
/// (computeCapacity(), the importers, the command line), never across Qt slots.
class InputError : public std::exception
{
public:
    /// field: the input's name, e.g. "--context" or "num_key_value_heads".
    /// message: what is wrong with it, e.g. "must be a positive whole number".
    /// A word (a run without white space) of over 256 characters in either is an input
    /// repeated back (a 3,000,000-digit cell, a line of binary): it is cut to its first 96
    /// characters and its length, so that no message runs to megabytes.
    InputError(QString field, QString message)
        : m_field(shortened(std::move(field))), m_message(shortened(std::move(message))), m_what(text().toUtf8()) {}

    /// The name of the offending input.
    const QString &field() const { return m_field; }
    /// What is wrong, without the field name.
    const QString &message() const { return m_message; }
    /// "field: message", the line printed to the user.
    QString text() const { return m_field.isEmpty() ? m_message : m_field + QStringLiteral(": ") + m_message; }
    /// text() in UTF-8, so that even an uncaught error says what was wrong.
    const char *what() const noexcept override { return m_what.constData(); }

private:
    static QString shortened(QString text)
    {
        constexpr qsizetype longest = 256, kept = 96;
        for (qsizetype i = 0; i < text.size();) {
            if (text.at(i).isSpace()) {
                ++i;
                continue;
            }
            qsizetype end = i;
            while (end < text.size() && !text.at(end).isSpace())
                ++end;
            if (end - i > longest) {
                const QString cut = QStringLiteral("\u2026 (%1 characters)").arg(end - i);
                text.replace(i + kept, end - i - kept, cut);
                end = i + kept + cut.size();
            }
            i = end;
        }
        return text;
    }

    QString m_field;
    QString m_message;
    QByteArray m_what;
};

} // namespace Headroom
