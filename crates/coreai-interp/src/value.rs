//! A runtime value of the interpreter.

use crate::tensor::Tensor;
use std::cell::RefCell;
use std::rc::Rc;

/// A runtime value.
#[derive(Clone, Debug)]
pub enum Value {
    Tensor(Rc<Tensor>),
    /// An ordering token (`!coreai.token`).
    Token,
    /// A mutable state (`!coreai.handle<…>`), shared by reference.
    Handle(Rc<RefCell<Tensor>>),
}

impl Value {
    pub fn tensor(t: Tensor) -> Value {
        Value::Tensor(Rc::new(t))
    }
    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }
}
