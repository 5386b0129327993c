// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>

namespace Headroom {

/// The FFTW wisdom built into the program: the plans FFTW_ESTIMATE makes for the
/// out-of-place real-to-complex transforms of 2^8 to 2^23 points and complex-to-real
/// ones of 2^8 to 2^12 points that OverflowRisk uses, as
/// `fftw-wisdom -n -e rof256 rof512 ... rof8388608 rob256 ... rob4096` writes them (FFTW 3.3.10,
/// Debian 12 libfftw3-bin; regenerate with that command into model/lengths/fftw-wisdom.txt
/// when FFTW changes). Making an FFTW_ESTIMATE plan of 2^13 to 2^15 points costs about
/// 15 million instructions, a third of a `plan` process against a trace; with this
/// wisdom FFTW rebuilds the same plan in about 1.7 million (the twiddle factors).
/// The text, empty if the resource is missing.
QByteArray builtInFftwWisdom();

/// Hands builtInFftwWisdom() to FFTW's planner (fftw_import_wisdom_from_string) and
/// returns whether FFTW took it. FFTW refuses wisdom of another FFTW version or build
/// (its header names the build's solvers), and plans as it would without wisdom for any
/// entry this processor cannot run (FFTW's planner.c: infeasible wisdom is ignored,
/// inconsistent wisdom forgotten), so a plan is valid whatever the machine; where the
/// wisdom is taken, a plan is the one FFTW_ESTIMATE makes: Debian's FFTW has SSE2 and
/// AVX codelets only (fftw_version "fftw-3.3.10-sse2-avx"), so on any processor with AVX
/// the same solvers compete, and the same transform to the bit (tests/model/tst_fftwisdom).
/// Not thread-safe, as no FFTW planner call is: call it under the planner's lock,
/// before the first plan.
bool importBuiltInFftwWisdom();

} // namespace Headroom
