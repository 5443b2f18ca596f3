//! The `pace` binary; everything lives in [`pace_cli`].

fn main() -> std::process::ExitCode {
    pace_cli::run()
}
