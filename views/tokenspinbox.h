// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractSpinBox>
#include <limits>
#include <optional>

namespace Headroom {

/// The one editor for every token or count box: a 64-bit spin box that reads
/// what the command line reads (Units::parseCount: "100,000", "100000",
/// "1e5", "8k", "32K", "1.5M"), in the user's locale (Units::userLocale()).
/// The value changes on Enter or when focus leaves (one undo step per typed
/// value), or by the arrows and Up/Down keys. Text that is not a whole number
/// in range is shown as invalid (tinted, with the reason as tooltip) and the
/// last valid value stays: nothing is truncated or guessed. Every box says how k and M
/// read in its tooltip (k = 1,000: "128K" is 128,000, not a model's 131,072 = 128 Ki), and a
/// value typed with one says how it was read, with the binary reading beside it. While the
/// text is invalid, Escape or Ctrl+Z (the platform's Undo) puts the last valid value back.
class TokenSpinBox : public QAbstractSpinBox
{
    Q_OBJECT
public:
    explicit TokenSpinBox(QWidget *parent = nullptr);

    qint64 value() const { return m_value; }
    /// Sets the value (clamped to the range) and shows it; emits valueChanged when it changed.
    void setValue(qint64 value);
    void setRange(qint64 minimum, qint64 maximum);
    qint64 minimum() const { return m_minimum; }
    qint64 maximum() const { return m_maximum; }
    /// What the arrows add or take (1 by default).
    void setSingleStep(qint64 step) { m_step = step; }
    /// Text after the number (" tokens"); typed text may end with it or not.
    void setSuffix(const QString &suffix);
    QString suffix() const { return m_suffix; }
    /// The name used in the reason for invalid text ("Context").
    void setFieldName(const QString &name) { m_field = name; }

    /// False while the text shown is not a valid value.
    bool isTextValid() const { return m_problem.isEmpty(); }
    /// Why the text is invalid (empty when valid).
    QString problem() const { return m_problem; }
    /// The value `text` stands for, or the reason it stands for none (*why).
    std::optional<qint64> interpret(const QString &text, QString *why = nullptr) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void valueChanged(qint64 value);
    /// A committed entry was refused (the reason) or read with a note ("128K read as 128,000 ...")
    /// : the window says it in its status bar too, where the keyboard user sees it.
    void noted(const QString &text);

protected:
    QValidator::State validate(QString &input, int &pos) const override;
    void fixup(QString &input) const override;
    void stepBy(int steps) override;
    StepEnabled stepEnabled() const override;
    /// Invalid text: takes Escape and Undo before the window's shortcuts (Undo, leaving presenter).
    bool event(QEvent *event) override;
    /// Invalid text: Escape or Undo shows the last valid value again.
    void keyPressEvent(QKeyEvent *event) override;

private:
    void commit();
    void showValue();
    void setProblem(const QString &problem);
    QString format(qint64 value) const;

    qint64 m_value = 0;
    qint64 m_minimum = 0;
    qint64 m_maximum = std::numeric_limits<qint64>::max();
    qint64 m_step = 1;
    QString m_suffix;
    QString m_field;
    QString m_problem;
    /// The tooltip while the text is valid: how k and M read, then how the last one typed was read.
    QString m_reading = tr("k = 1,000 and M = 1,000,000, as on the command line: 128K is 128,000, "
                           "where 128 Ki (2^17) is 131,072");
};

} // namespace Headroom
