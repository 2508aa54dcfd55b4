//! Dtype conversions and scalar operands (_to_copy, wrapped Python numbers, type promotion) → coreai.

pub static LOWERINGS: super::Family = &[];
