//! Comparisons, logical and bitwise ops, where → coreai.

pub static LOWERINGS: super::Family = &[];
