// expected-* comments with @+N, @-N, @above, @below and (with -re) {{regex}}
// match the same way as in mlir-opt; both tools accept this file.
// RUN: coreai-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --split-input-file --verify-diagnostics

func.func @wrong_return_type() -> i32 {
  %c = arith.constant 1 : i64
  // expected-error @+1 {{type of return operand 0 ('i64') doesn't match function result type ('i32')}}
  return %c : i64
}

// -----

func.func @offset_minus() -> i32 {
  %c = arith.constant 1 : i64
  return %c : i64
  // expected-error @-1 {{doesn't match function result type}}
}

// -----

func.func @above_and_regex() -> i32 {
  %c = arith.constant 1 : i64
  return %c : i64
  // expected-error-re @above {{type of return operand {{[0-9]+}} ('i{{(32|64)}}')}}
}

// -----

func.func @twice() { return }
// expected-note @above {{see existing symbol definition here}}
// expected-error @below {{redefinition of symbol named 'twice'}}
func.func @twice() { return }
