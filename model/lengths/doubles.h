// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>

namespace Headroom {

// Doubles left unset until written, for arrays every element of which is written before it
// is read: std::vector's resize sets each to 0 first, which was 10-15% of an inversion's
// instructions at 4,000 frequencies (callgrind, bench_risk).
class Doubles
{
public:
    Doubles() = default;
    Doubles(Doubles &&) = default;
    Doubles &operator=(Doubles &&) = default;
    Doubles(const Doubles &other) { *this = other; }
    Doubles &operator=(const Doubles &other)
    {
        if (this != &other) {
            resize(other.m_size);
            std::copy(other.m_data.get(), other.m_data.get() + other.m_size, m_data.get());
        }
        return *this;
    }
    /// n elements, their values unset (the old ones dropped) unless n is the size already.
    void resize(size_t n)
    {
        if (n != m_size) {
            m_data.reset(new double[n]);
            m_size = n;
        }
    }
    size_t size() const { return m_size; }
    double &operator[](size_t i) { return m_data[i]; }
    const double &operator[](size_t i) const { return m_data[i]; }

private:
    std::unique_ptr<double[]> m_data;
    size_t m_size = 0;
};

} // namespace Headroom
