//! The project's passes, one per file. Each is declared in
//! [`crate::registry::PASSES`].

pub mod fold_idempotent_unary;
