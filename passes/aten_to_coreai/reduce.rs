//! Reductions, scans, sorts → coreai.

pub static LOWERINGS: super::Family = &[];
