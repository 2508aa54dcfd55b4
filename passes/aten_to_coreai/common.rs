//! Helpers shared by the lowering families.
