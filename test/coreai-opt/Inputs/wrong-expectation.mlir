func.func @f() -> i32 {
  %c = arith.constant 1 : i64
  // expected-error @+1 {{this message is not the one the verifier emits}}
  return %c : i64
}
