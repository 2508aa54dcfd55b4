//! Pooling, normalization, attention and resampling → coreai.

pub static LOWERINGS: super::Family = &[];
