//! coreai-run: a module and `.npz` inputs. The input is a 4-byte
//! little-endian length, that many bytes of module text, then the `.npz`.
//! Inputs are matched to the entry `main` by name, dtype and shape as
//! coreai-run matches them; a mismatch ends the run (coreai-run reports it).

use coreai_interp::{npz::read_npz, project_context, Options, Program, Value};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;

thread_local! {
    static CONTEXT: melior::Context = project_context();
    static NPZ: PathBuf = std::env::temp_dir().join(format!("coreai-fuzz-{}.npz", std::process::id()));
}

fuzz_target!(|data: &[u8]| {
    let Some((len, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let len = u32::from_le_bytes(*len) as usize;
    if len > rest.len() {
        return;
    }
    let (module, npz) = rest.split_at(len);
    let Ok(text) = std::str::from_utf8(module) else {
        return;
    };
    // A known MLIR 22 parser fault (upstream-forward-ref.test), skipped.
    if coreai_fuzz::hazards::forward_ref_captured_by_block_argument(text.as_bytes()) {
        return;
    }
    CONTEXT.with(|context| {
        let Ok(program) = Program::parse(context, text) else {
            return;
        };
        let Ok((ports, _)) = program.signature("main") else {
            return;
        };
        let given = NPZ.with(|path| {
            std::fs::write(path, npz).ok()?;
            read_npz(path).ok()
        });
        let Some(given) = given else {
            return;
        };
        let mut inputs = Vec::new();
        for port in &ports {
            let Some(t) = given.get(&port.name) else {
                return;
            };
            let shape_ok = port.shape.as_ref().is_none_or(|s| {
                s.len() == t.shape().len()
                    && s.iter()
                        .zip(t.shape())
                        .all(|(d, g)| d.is_none_or(|d| d == g))
            });
            if port.is_handle || port.is_token || port.dtype != Some(t.dtype()) || !shape_ok {
                return;
            }
            inputs.push(Value::tensor(t.clone()));
        }
        // Bounded as `coreai-run --timeout 5` bounds it: a loop whose
        // condition never turns false is the program's, not a hang.
        let options = Options {
            deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(5)),
            ..Options::default()
        };
        let _ = program.run("main", inputs, options);
    });
});

fn main() {
    coreai_fuzz::run()
}
