//! Higher-order ops (cond, while_loop) and symbolic-size ops → coreai.

pub static LOWERINGS: super::Family = &[];
