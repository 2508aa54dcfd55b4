//! `--random-inputs SEED`: seeded inputs for every argument of `main`, drawn
//! to expose numerical bugs: values straddling zero, above 10, at the fp16
//! limits (±65504, ±6.1e-5) for floats, at the int32 limits for 32/64-bit
//! integers, 0/1 for booleans. Deterministic for a seed.

use coreai_interp::{DType, Port, Tensor};
use coreai_ir::rng::SplitMix64 as Rng;
use ndarray::ArrayD;
use std::collections::BTreeMap;

fn float_value(rng: &mut Rng, dtype: DType) -> f64 {
    let r = rng.unit();
    let pick = rng.next() % 16;
    match pick {
        0 => 12.0 + r * 10.0,
        1 => -(12.0 + r * 10.0),
        2 if dtype == DType::F16 => {
            if r < 0.5 {
                65504.0
            } else {
                -65504.0
            }
        }
        3 => {
            if r < 0.5 {
                6.1e-5
            } else {
                -6.1e-5
            }
        }
        _ => r * 6.0 - 3.0,
    }
}

fn int_value(rng: &mut Rng, dtype: DType) -> i128 {
    match (dtype, rng.next() % 8) {
        (DType::Bool, _) => (rng.next() % 2) as i128,
        (d, 0) if d.int_bits() >= 32 => i32::MAX as i128,
        (d, 1) if d.int_bits() >= 32 && d.is_signed_int() => i32::MIN as i128,
        (d, _) if d.is_signed_int() => (rng.next() % 21) as i128 - 10,
        _ => (rng.next() % 11) as i128,
    }
}

/// Inputs for `ports`; a dynamic dimension becomes 3.
pub fn random_inputs(ports: &[Port], seed: u64) -> Result<BTreeMap<String, Tensor>, String> {
    let mut rng = Rng(seed);
    let mut out = BTreeMap::new();
    for p in ports {
        let (Some(dtype), Some(shape)) = (p.dtype, &p.shape) else {
            return Err(format!(
                "argument '{}' of type {} cannot be drawn at random",
                p.name, p.type_text
            ));
        };
        let shape: Vec<usize> = shape.iter().map(|d| d.unwrap_or(3)).collect();
        let n: usize = shape.iter().product();
        let t = if dtype.is_float() {
            let v: Vec<f64> = (0..n).map(|_| float_value(&mut rng, dtype)).collect();
            Tensor::from_f64(
                ArrayD::from_shape_vec(shape, v).map_err(|e| e.to_string())?,
                dtype,
            )
        } else if dtype.is_int() || dtype == DType::Bool {
            let v: Vec<i128> = (0..n).map(|_| int_value(&mut rng, dtype)).collect();
            Tensor::from_i128(
                ArrayD::from_shape_vec(shape, v).map_err(|e| e.to_string())?,
                dtype,
            )
        } else {
            return Err(format!(
                "argument '{}' of type {} cannot be drawn at random",
                p.name, p.type_text
            ));
        };
        out.insert(p.name.clone(), t);
    }
    Ok(out)
}
