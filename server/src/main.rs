//! `mazerace`: see `cli` for the commands.

fn main() -> std::process::ExitCode {
    mazerace_server::cli::main()
}
