//! Indexing ops (gather, scatter, index.Tensor, embedding ...) → coreai.

pub static LOWERINGS: super::Family = &[];
