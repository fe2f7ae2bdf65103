//! `mazerace`: see `cli` for the commands.

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    mazerace_server::cli::main()
}
