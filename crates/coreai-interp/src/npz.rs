//! `.npz` input and output through `npyz`. bfloat16, which NumPy lacks, is
//! read from and written as float32.

use crate::error::InterpError;
use crate::tensor::{DType, Tensor};
use half::f16;
use ndarray::{ArrayD, IxDyn};
use npyz::npz::{NpzArchive, NpzWriter};
use npyz::WriterBuilder;
use num_complex::Complex32;
use std::collections::BTreeMap;
use std::path::Path;

fn io_err(path: &Path, msg: impl std::fmt::Display) -> InterpError {
    InterpError::Io {
        path: path.display().to_string(),
        msg: msg.to_string(),
    }
}

/// Every array of the archive, by name.
pub fn read_npz(path: &Path) -> Result<BTreeMap<String, Tensor>, InterpError> {
    let mut archive = NpzArchive::open(path).map_err(|e| io_err(path, e))?;
    let names: Vec<String> = archive.array_names().map(|s| s.to_string()).collect();
    let mut out = BTreeMap::new();
    for name in names {
        check_header(&mut archive, &name)
            .map_err(|e| io_err(path, format!("array '{name}': {e}")))?;
        let Some(npy) = archive.by_name(&name).map_err(|e| io_err(path, e))? else {
            continue;
        };
        let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
        if npy.order() == npyz::Order::Fortran && shape.len() > 1 {
            return Err(io_err(
                path,
                format!("array '{name}' is Fortran-ordered; save it C-contiguous"),
            ));
        }
        let npyz::DType::Plain(ts) = npy.dtype() else {
            return Err(io_err(
                path,
                format!("array '{name}' has a structured dtype"),
            ));
        };
        let sh = IxDyn(&shape);
        let bad = |e: std::io::Error| io_err(path, format!("array '{name}': {e}"));
        macro_rules! arr {
            ($t:ty, $v:ident) => {{
                let v: Vec<$t> = npy.into_vec::<$t>().map_err(bad)?;
                Tensor::$v(ArrayD::from_shape_vec(sh, v).map_err(|e| io_err(path, e))?)
            }};
        }
        use npyz::TypeChar as C;
        let t = match (ts.type_char(), ts.size_field()) {
            (C::Bool, 1) => arr!(bool, Bool),
            (C::Int, 1) => arr!(i8, I8),
            (C::Int, 2) => arr!(i16, I16),
            (C::Int, 4) => arr!(i32, I32),
            (C::Int, 8) => arr!(i64, I64),
            (C::Uint, 1) => arr!(u8, U8),
            (C::Uint, 2) => arr!(u16, U16),
            (C::Uint, 4) => arr!(u32, U32),
            (C::Uint, 8) => arr!(u64, U64),
            (C::Float, 2) => arr!(f16, F16),
            (C::Float, 4) => arr!(f32, F32),
            (C::Float, 8) => arr!(f64, F64),
            (C::Complex, 8) => arr!(Complex32, C64),
            _ => {
                return Err(io_err(
                    path,
                    format!("array '{name}' has unsupported dtype {ts}"),
                ))
            }
        };
        out.insert(name, t);
    }
    Ok(out)
}

/// Headers nest deeper than NumPy's own (the dict and the shape tuple; a
/// structured dtype's fields a few levels more) are refused.
const MAX_HEADER_DEPTH: usize = 8;
/// NumPy's headers are a few hundred bytes; version 2 allows 4 GiB.
const MAX_HEADER_LEN: usize = 1 << 20;

/// Checks the `.npy` header of array `name` before npyz parses it: npyz
/// reads the header's Python literal with a backtracking grammar whose time
/// grows exponentially with its bracket depth (a fuzzed header with 40
/// nested `[` took seconds), so a header longer than [`MAX_HEADER_LEN`] or
/// nested deeper than [`MAX_HEADER_DEPTH`] is an error. What is not a `.npy`
/// header at all is left to npyz, which says so.
fn check_header<R: std::io::Read + std::io::Seek>(
    archive: &mut NpzArchive<R>,
    name: &str,
) -> Result<(), String> {
    use std::io::Read;
    let file_name = npyz::npz::file_name_from_array_name(name);
    let Ok(mut file) = archive.zip_archive().by_name(&file_name) else {
        return Ok(());
    };
    let mut magic = [0u8; 8];
    if file.read_exact(&mut magic).is_err() || &magic[..6] != b"\x93NUMPY" {
        return Ok(());
    }
    let len = if magic[6] == 1 {
        let mut b = [0u8; 2];
        file.read_exact(&mut b).map_err(|e| e.to_string())?;
        u16::from_le_bytes(b) as usize
    } else {
        let mut b = [0u8; 4];
        file.read_exact(&mut b).map_err(|e| e.to_string())?;
        u32::from_le_bytes(b) as usize
    };
    if len > MAX_HEADER_LEN {
        return Err(format!(
            "its .npy header is {len} bytes (more than {MAX_HEADER_LEN})"
        ));
    }
    let mut header = Vec::with_capacity(len);
    file.take(len as u64)
        .read_to_end(&mut header)
        .map_err(|e| e.to_string())?;
    let (mut depth, mut deepest, mut quote) = (0usize, 0usize, None);
    for &c in &header {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(c),
            (None, b'(' | b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (None, b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest > MAX_HEADER_DEPTH {
        return Err(format!(
            "its .npy header nests {deepest} levels of brackets (more than \
             {MAX_HEADER_DEPTH}): not a header NumPy writes"
        ));
    }
    Ok(())
}

/// Writes `arrays` in order (bfloat16 as float32).
pub fn write_npz(path: &Path, arrays: &[(String, Tensor)]) -> Result<(), InterpError> {
    let mut w = NpzWriter::create(path).map_err(|e| io_err(path, e))?;
    for (name, t) in arrays {
        let t = if t.dtype() == DType::BF16 {
            t.cast(DType::F32)
        } else {
            t.clone()
        };
        let shape: Vec<u64> = t.shape().iter().map(|&d| d as u64).collect();
        macro_rules! put {
            ($a:expr, $t:ty) => {{
                let mut wr = w
                    .array::<$t>(name, Default::default())
                    .map_err(|e| io_err(path, e))?
                    .default_dtype()
                    .shape(&shape)
                    .begin_nd()
                    .map_err(|e| io_err(path, e))?;
                for v in $a.as_standard_layout().iter() {
                    wr.push(v).map_err(|e| io_err(path, e))?;
                }
                wr.finish().map_err(|e| io_err(path, e))?;
            }};
        }
        match &t {
            Tensor::Bool(a) => put!(a, bool),
            Tensor::I8(a) => put!(a, i8),
            Tensor::I16(a) => put!(a, i16),
            Tensor::I32(a) => put!(a, i32),
            Tensor::I64(a) => put!(a, i64),
            Tensor::U8(a) => put!(a, u8),
            Tensor::U16(a) => put!(a, u16),
            Tensor::U32(a) => put!(a, u32),
            Tensor::U64(a) => put!(a, u64),
            Tensor::F16(a) => put!(a, f16),
            Tensor::F32(a) => put!(a, f32),
            Tensor::F64(a) => put!(a, f64),
            Tensor::C64(a) => put!(a, Complex32),
            Tensor::BF16(_) => unreachable!("converted to f32 above"),
        }
    }
    Ok(())
}

/// Runs `entry` of `program` on the arrays of `inputs` (matched to its
/// arguments by name) and writes its results to `outputs`, named as the
/// entry names them: what a program with user kernels needs to be run
/// like `coreai-run --inputs --outputs`.
pub fn run_npz(
    program: &crate::Program,
    entry: &str,
    inputs: &Path,
    outputs: &Path,
) -> Result<(), InterpError> {
    let (args, results) = program.signature(entry)?;
    let mut named = read_npz(inputs)?;
    let values = args
        .iter()
        .map(|p| {
            named
                .remove(&p.name)
                .map(crate::Value::tensor)
                .ok_or_else(|| InterpError::Input {
                    name: p.name.clone(),
                    msg: "missing from the inputs".into(),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let out = program.run(entry, values, crate::Options::default())?;
    let arrays: Vec<(String, Tensor)> = results
        .iter()
        .zip(out)
        .filter_map(|(p, v)| v.as_tensor().cloned().map(|t| (p.name.clone(), t)))
        .collect();
    write_npz(outputs, &arrays)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_dtype() {
        let dir = std::env::temp_dir().join(format!("coreai-interp-npz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.npz");
        let base =
            ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![-2.5, -0.0, 0.5, 1e3, f64::NAN, 7.0])
                .unwrap();
        let ints =
            ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![-2i128, 0, 1, 200, 70000, 7]).unwrap();
        let mut arrays = vec![];
        for dt in [DType::F16, DType::F32, DType::F64, DType::Bool] {
            arrays.push((dt.name().to_string(), Tensor::from_f64(base.clone(), dt)));
        }
        for dt in [
            DType::I8,
            DType::I16,
            DType::I32,
            DType::I64,
            DType::U8,
            DType::U16,
            DType::U32,
            DType::U64,
        ] {
            arrays.push((dt.name().to_string(), Tensor::from_i128(ints.clone(), dt)));
        }
        arrays.push(("c64".into(), Tensor::from_f64(base.clone(), DType::C64)));
        write_npz(&p, &arrays).unwrap();
        let back = read_npz(&p).unwrap();
        for (n, t) in &arrays {
            let b = &back[n];
            assert_eq!(b.dtype(), t.dtype(), "{n}");
            assert_eq!(b.shape(), t.shape());
            let (x, y) = (b.to_f64(), t.to_f64());
            assert!(
                x.iter()
                    .zip(y.iter())
                    .all(|(p, q)| p == q || (p.is_nan() && q.is_nan())),
                "{n}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A fuzzed `.npz` (fuzz/artifacts/run_module/timeout-38d1b606...):
    /// a header whose shape is 40 nested `[` kept npyz's header parser
    /// busy for seconds; refused before it parses.
    #[test]
    fn a_deeply_nested_npy_header_is_refused() {
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("coreai-interp-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("nested.npz");
        let header = format!(
            "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, }}",
            "[".repeat(40)
        );
        let mut npy = b"\x93NUMPY\x01\x00".to_vec();
        npy.extend((header.len() as u16).to_le_bytes());
        npy.extend(header.as_bytes());
        let mut w = NpzWriter::create(&p).unwrap();
        w.zip_writer()
            .start_file("x.npy", Default::default())
            .unwrap();
        w.zip_writer().write_all(&npy).unwrap();
        drop(w);
        let err = read_npz(&p).unwrap_err().to_string();
        assert!(
            err.contains("array 'x': its .npy header nests 42 levels of brackets (more than 8)"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
