//! Model state: reading and writing state handles; coreaix views, which change only the constraint encoding, never the data.

use crate::error::{kerr, KResult};
use crate::ops::{one, Ctx, Kernel};
use crate::value::Value;

/// The coreai kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("coreai.create_token", |_| Ok(vec![Value::Token])),
    ("coreai.join_token", |_| Ok(vec![Value::Token])),
    ("coreai.read_handle", read_handle),
    ("coreai.write_handle", write_handle),
    ("coreaix.view", |c| one(c.arg(0)?.clone())),
    ("coreaix.cast", |c| one(c.arg(0)?.cast(c.out_dtype(0)?))),
    ("coreaix.copy_with_constraints", |c| one(c.arg(0)?.clone())),
    ("coreaix.copy_discarding_constraints", |c| {
        one(c.arg(0)?.clone())
    }),
];

fn read_handle(c: &Ctx) -> KResult<Vec<Value>> {
    match c.vals.first() {
        Some(Value::Handle(h)) => Ok(vec![Value::tensor(h.borrow().clone()), Value::Token]),
        _ => kerr("operand #0 is not a handle"),
    }
}

fn write_handle(c: &Ctx) -> KResult<Vec<Value>> {
    match c.vals.first() {
        Some(Value::Handle(h)) => {
            *h.borrow_mut() = c.arg(1)?.clone();
            Ok(vec![Value::Token])
        }
        _ => kerr("operand #0 is not a handle"),
    }
}
