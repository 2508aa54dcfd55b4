//! Property test of `core-optimize{exact=true}`: random well-typed coreai
//! graphs (elementwise ops, broadcasts, reshapes, transposes, casts,
//! reductions, constants with special values), seeded, run in the executor
//! before and after the pass on adversarial inputs (NaN, ±0, ±inf,
//! subnormals, non-integral values, integer extremes): every output must be
//! bit-identical. `COREAI_PROPERTY_CASES` sets the number of cases
//! (default 2000); `COREAI_PROPERTY_DUMP=DIR` writes each case's module
//! before and after (for coreai-core, `test/interp/test_core_optimize_property.py`).

use coreai_interp::{project_context, Options, Program, Tensor, Value};
use coreai_ir::rng::SplitMix64;
use ndarray::{ArrayD, IxDyn};

/// SplitMix64, seeded.
struct Rng(SplitMix64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    F32,
    F16,
    Si32,
}

impl Ty {
    fn mlir(self) -> &'static str {
        match self {
            Ty::F32 => "f32",
            Ty::F16 => "f16",
            Ty::Si32 => "si32",
        }
    }
}

#[derive(Clone)]
struct Val {
    name: String,
    shape: Vec<usize>,
    ty: Ty,
}

fn tensor_type(shape: &[usize], ty: Ty) -> String {
    let dims: String = shape.iter().map(|d| format!("{d}x")).collect();
    format!("tensor<{dims}{}>", ty.mlir())
}

impl Val {
    fn t(&self) -> String {
        tensor_type(&self.shape, self.ty)
    }
}

const FLOATS: &[&str] = &[
    "0x7FC00000",
    "-0.0",
    "0.0",
    "0x7F800000",
    "0xFF800000",
    "1.0e-45",
    "-1.5e-40",
    "0.3",
    "-0.4",
    "2.5",
    "1.0",
    "-7.0",
    "1.0e30",
    "-1.0",
    "65504.0",
    "0.5",
];
const HALFS: &[&str] = &[
    "0x7E00", "-0.0", "0.0", "0x7C00", "0xFC00", "0x0001", "0.3", "-0.4", "2.5", "1.0", "-7.0",
    "65504.0",
];
const INTS: &[i64] = &[i32::MIN as i64, i32::MAX as i64, 0, -1, 1, 7, -7, 2, 65536];

/// Text of one random graph `@main` and its argument values.
struct Case {
    text: String,
    inputs: Vec<Value>,
}

struct Builder {
    rng: Rng,
    body: String,
    pool: Vec<Val>,
    next: usize,
}

impl Builder {
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%v{}", self.next)
    }

    fn constant(&mut self, shape: &[usize], ty: Ty) -> Val {
        let n: usize = shape.iter().product();
        let splat = self.rng.below(2) == 0;
        let lits: Vec<String> = (0..if splat { 1 } else { n })
            .map(|_| match ty {
                Ty::F32 => self.rng.pick(FLOATS).to_string(),
                Ty::F16 => self.rng.pick(HALFS).to_string(),
                Ty::Si32 => self.rng.pick(INTS).to_string(),
            })
            .collect();
        let literal = if splat || shape.is_empty() {
            lits[0].clone()
        } else {
            format!("[{}]", lits.join(", "))
        };
        let literal = if !splat && shape.len() > 1 {
            // Nested brackets for rank > 1: reshape a flat constant instead.
            let flat = Val {
                name: self.fresh(),
                shape: vec![n],
                ty,
            };
            self.body += &format!(
                "  {} = coreai.constant dense<{literal}> : {}\n",
                flat.name,
                flat.t()
            );
            return self.reshape(&flat, shape.to_vec());
        } else {
            literal
        };
        let v = Val {
            name: self.fresh(),
            shape: shape.to_vec(),
            ty,
        };
        self.body += &format!(
            "  {} = coreai.constant dense<{literal}> : {}\n",
            v.name,
            v.t()
        );
        v
    }

    fn shape_const(&mut self, values: &[usize], element: &str) -> String {
        let name = self.fresh();
        let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        self.body += &format!(
            "  {name} = coreai.constant dense<[{}]> : tensor<{}x{element}>\n",
            list.join(", "),
            values.len()
        );
        name
    }

    fn reshape(&mut self, x: &Val, shape: Vec<usize>) -> Val {
        let s = self.shape_const(&shape, "ui32");
        let v = Val {
            name: self.fresh(),
            shape,
            ty: x.ty,
        };
        self.body += &format!(
            "  {} = coreai.reshape {}, {s} : ({}, tensor<{}xui32>) -> {}\n",
            v.name,
            x.name,
            x.t(),
            v.shape.len(),
            v.t()
        );
        v
    }

    fn emit(&mut self, line: String, v: Val) -> Val {
        self.body += &line;
        self.pool.push(v.clone());
        v
    }

    /// One random op on values of the pool (or new constants).
    fn step(&mut self) {
        let x = self.rng.pick(&self.pool.clone()).clone();
        match self.rng.below(10) {
            0 | 1 => self.binary(&x),
            2 if x.ty != Ty::Si32 => {
                let op = *self.rng.pick(&["abs", "exp", "sqrt", "sin", "tanh"]);
                let v = Val {
                    name: self.fresh(),
                    ..x.clone()
                };
                self.emit(
                    format!(
                        "  {} = coreai.{op} {} : {} -> {}\n",
                        v.name,
                        x.name,
                        x.t(),
                        v.t()
                    ),
                    v,
                );
            }
            3 => {
                let n = x.shape.iter().product();
                let shape = if self.rng.below(2) == 0 {
                    vec![n]
                } else {
                    x.shape.clone()
                };
                let v = self.reshape(&x, shape);
                self.pool.push(v);
            }
            4 if x.shape.len() >= 2 => {
                let mut perm: Vec<usize> = (0..x.shape.len()).collect();
                for i in (1..perm.len()).rev() {
                    let j = self.rng.below(i + 1);
                    perm.swap(i, j);
                }
                let p = self.shape_const(&perm, "ui32");
                let shape: Vec<usize> = perm.iter().map(|&i| x.shape[i]).collect();
                let v = Val {
                    name: self.fresh(),
                    shape,
                    ty: x.ty,
                };
                let line = format!(
                    "  {} = coreai.transpose {}, {p} : ({}, tensor<{}xui32>) -> {}\n",
                    v.name,
                    x.name,
                    x.t(),
                    perm.len(),
                    v.t()
                );
                self.emit(line, v);
            }
            5 => {
                let mut shape = x.shape.clone();
                if self.rng.below(2) == 0 {
                    shape.insert(0, 2);
                }
                let s = self.shape_const(&shape, "ui32");
                let v = Val {
                    name: self.fresh(),
                    shape,
                    ty: x.ty,
                };
                let line = format!(
                    "  {} = coreai.broadcast_to {}, {s} : ({}, tensor<{}xui32>) -> {}\n",
                    v.name,
                    x.name,
                    x.t(),
                    v.shape.len(),
                    v.t()
                );
                self.emit(line, v);
            }
            6 => {
                let to = *self.rng.pick(&[Ty::F32, Ty::F16, Ty::Si32]);
                let v = Val {
                    name: self.fresh(),
                    shape: x.shape.clone(),
                    ty: to,
                };
                self.emit(
                    format!(
                        "  {} = coreai.cast {} : {} to {}\n",
                        v.name,
                        x.name,
                        x.t(),
                        v.t()
                    ),
                    v,
                );
            }
            7 if !x.shape.is_empty() => {
                let op = *self.rng.pick(&["reduce_sum", "reduce_max"]);
                let axis = self.rng.below(x.shape.len());
                let a = self.fresh();
                self.body += &format!("  {a} = coreai.constant dense<{axis}> : tensor<1xsi32>\n");
                let mut shape = x.shape.clone();
                shape[axis] = 1;
                let v = Val {
                    name: self.fresh(),
                    shape,
                    ty: x.ty,
                };
                let line = format!(
                    "  {} = coreai.{op} {}, {a} : ({}, tensor<1xsi32>) -> {}\n",
                    v.name,
                    x.name,
                    x.t(),
                    v.t()
                );
                self.emit(line, v);
            }
            8 => {
                let c = self.constant(&x.shape, x.ty);
                self.pool.push(c);
            }
            _ => self.binary(&x),
        }
    }

    fn binary(&mut self, x: &Val) {
        let ops: &[&str] = if x.ty == Ty::Si32 {
            &["add", "sub", "mul", "maximum"]
        } else {
            &["add", "sub", "mul", "divide", "maximum", "minimum"]
        };
        let op = *self.rng.pick(ops);
        let same: Vec<Val> = self
            .pool
            .iter()
            .filter(|v| v.ty == x.ty && v.shape == x.shape)
            .cloned()
            .collect();
        let y = match self.rng.below(3) {
            0 => self.constant(&[], x.ty),
            1 => self.constant(&x.shape, x.ty),
            _ => self.rng.pick(&same).clone(),
        };
        let (a, b) = if self.rng.below(2) == 0 {
            (x.clone(), y)
        } else {
            (y, x.clone())
        };
        let v = Val {
            name: self.fresh(),
            shape: x.shape.clone(),
            ty: x.ty,
        };
        let line = format!(
            "  {} = coreai.decomposable.broadcasting_{op} {}, {} : ({}, {}) -> {}\n",
            v.name,
            a.name,
            b.name,
            a.t(),
            b.t(),
            v.t()
        );
        self.emit(line, v);
    }
}

fn input(rng: &mut Rng, shape: &[usize], ty: Ty) -> Value {
    let n: usize = shape.iter().product();
    let sh = IxDyn(shape);
    let specials = [
        f32::NAN,
        -0.0,
        0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.0e-45,
        -1.5e-40,
        0.3,
        -0.4,
        2.5,
        1.0e30,
        -7.5,
    ];
    Value::tensor(match ty {
        Ty::F32 => Tensor::F32(
            ArrayD::from_shape_vec(sh, (0..n).map(|_| *rng.pick(&specials)).collect()).unwrap(),
        ),
        Ty::F16 => Tensor::F16(
            ArrayD::from_shape_vec(
                sh,
                (0..n)
                    .map(|_| half::f16::from_f32(*rng.pick(&specials)))
                    .collect(),
            )
            .unwrap(),
        ),
        Ty::Si32 => Tensor::I32(
            ArrayD::from_shape_vec(sh, (0..n).map(|_| *rng.pick(INTS) as i32).collect()).unwrap(),
        ),
    })
}

fn generate(seed: u64) -> Case {
    let mut rng = Rng(SplitMix64(seed));
    let shapes: &[&[usize]] = &[&[3], &[2, 3], &[2, 1, 3], &[4, 2]];
    let shape = rng.pick(shapes).to_vec();
    let ty = *rng.pick(&[Ty::F32, Ty::F32, Ty::F16, Ty::Si32]);
    let args = 1 + rng.below(2);
    let mut b = Builder {
        rng,
        body: String::new(),
        pool: Vec::new(),
        next: 0,
    };
    let mut inputs = Vec::new();
    let mut params = Vec::new();
    for i in 0..args {
        let v = Val {
            name: format!("%a{i}"),
            shape: shape.clone(),
            ty,
        };
        params.push(format!("{}: {} {{coreai.name = \"a{i}\"}}", v.name, v.t()));
        inputs.push(input(&mut b.rng, &shape, ty));
        b.pool.push(v);
    }
    let steps = 3 + b.rng.below(10);
    for _ in 0..steps {
        b.step();
    }
    let outs: Vec<Val> = b.pool.iter().rev().take(2).cloned().collect();
    let names: Vec<String> = outs.iter().map(|v| v.name.clone()).collect();
    let types: Vec<String> = outs.iter().map(Val::t).collect();
    let text = format!(
        "coreai.graph @main({}) -> ({}) {{\n{}  coreai.output {} : {}\n}}\n",
        params.join(", "),
        types.join(", "),
        b.body,
        names.join(", "),
        types.join(", ")
    );
    Case { text, inputs }
}

/// The bits of every element (NaN payloads included).
fn bits(v: &Value) -> (String, Vec<usize>, Vec<u64>) {
    let t = v.as_tensor().expect("a tensor");
    let b: Vec<u64> = match t {
        Tensor::F32(a) => a.iter().map(|x| x.to_bits() as u64).collect(),
        Tensor::F16(a) => a.iter().map(|x| x.to_bits() as u64).collect(),
        Tensor::I32(a) => a.iter().map(|x| *x as u32 as u64).collect(),
        other => other.to_f64().iter().map(|x| x.to_bits()).collect(),
    };
    (t.dtype().name().to_string(), t.shape(), b)
}

#[test]
fn exact_core_optimize_keeps_every_bit_on_random_graphs() {
    let cases: u64 = std::env::var("COREAI_PROPERTY_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let dump = std::env::var("COREAI_PROPERTY_DUMP")
        .ok()
        .map(std::path::PathBuf::from);
    let compiler = coreai::Compiler::new();
    let context = project_context();
    let (mut rewritten, mut ran) = (0, 0);
    for seed in 0..cases {
        let case = generate(seed);
        let before = Program::parse(&context, &case.text)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", case.text));
        let Ok(expected) = before.run("main", case.inputs.clone(), Options::default()) else {
            continue; // a kernel error (e.g. a cast it rejects) on this input: nothing to compare
        };
        ran += 1;
        let mut module = compiler.parse(&case.text, "case.mlir").unwrap();
        compiler
            .run_pipeline(&mut module, "builtin.module(core-optimize{exact=true})")
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let optimized = module.as_operation().to_string();
        if optimized.matches(" = coreai.").count() < case.text.matches(" = coreai.").count() {
            rewritten += 1;
        }
        if let Some(dir) = &dump {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join(format!("case{seed}.before.mlir")), &case.text).unwrap();
            std::fs::write(dir.join(format!("case{seed}.after.mlir")), &optimized).unwrap();
        }
        let after = Program::parse(&context, &optimized)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{optimized}"));
        let got = after
            .run("main", case.inputs.clone(), Options::default())
            .unwrap_or_else(|e| panic!("seed {seed}: the optimized graph fails: {e}\n{optimized}"));
        let (want, got): (Vec<_>, Vec<_>) = (
            expected.iter().map(bits).collect(),
            got.iter().map(bits).collect(),
        );
        assert_eq!(
            want, got,
            "seed {seed}: outputs differ\nbefore:\n{}\nafter:\n{optimized}",
            case.text
        );
    }
    // The generator must exercise the pass, not only pass through it.
    assert!(ran > cases * 9 / 10, "only {ran} of {cases} cases ran");
    assert!(
        rewritten > ran / 2,
        "only {rewritten} of {ran} cases were rewritten"
    );
}
