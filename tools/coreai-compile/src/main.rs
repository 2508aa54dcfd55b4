//! The `coreai-compile` binary: [`coreai_compile::main`] on the process's
//! command line.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(coreai_compile::main(std::env::args()))
}
