func.func @first() {
  return
}

// -----

func.bogus

// -----

func.func @third() {
  return
}
