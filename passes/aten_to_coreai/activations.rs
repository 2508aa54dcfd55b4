//! Activations (relu, gelu, silu, hardswish, clamp ...) → coreai.

pub static LOWERINGS: super::Family = &[];
