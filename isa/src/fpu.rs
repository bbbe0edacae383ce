//! PLACEHOLDER (being written): Epiphany single-precision arithmetic.
