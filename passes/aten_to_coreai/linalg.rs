//! Matrix products and convolutions → coreai.

pub static LOWERINGS: super::Family = &[];
