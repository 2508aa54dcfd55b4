//! Shape and layout ops (view, permute, slice, cat, pad ...) → coreai.

pub static LOWERINGS: super::Family = &[];
