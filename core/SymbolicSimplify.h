// Simplification of symbolic scalars to a canonical linear form, so that
// shapes written differently ("(b + 1) - b" and "1") compare equal.
#pragma once

#include "core/SymbolicScalar.h"

namespace pto {

// Rewrites sums and differences as  c1*t1 + c2*t2 + ... + c0  with the terms
// ordered by their printed form and like terms combined; non-linear parts
// (x*y, x//4, min(...)) are terms whose operands are simplified in turn.
SymbolicScalar simplify(const SymbolicScalar& value);

// True when a - b simplifies to the constant 0.
bool provablyEqual(const SymbolicScalar& a, const SymbolicScalar& b);

} // namespace pto
