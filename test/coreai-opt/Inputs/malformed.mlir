func.func @f() -> i32 {
  return %nope : i32
}
