//! Writes the toolgate component to a file (or standard output with `-`), so
//! builds outside cargo (the JavaScript package) use the very same bytes.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: toolgate-component OUT.wasm   (or - for standard output)");
        return ExitCode::from(2);
    };
    let result = if path == "-" {
        std::io::stdout().write_all(toolgate_component::COMPONENT)
    } else {
        std::fs::write(&path, toolgate_component::COMPONENT)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", path.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}
