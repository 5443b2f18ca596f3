//! Prints how long `pace_contracts::compile` takes (cold when the cache is absent, else cached).
//!
//! `cargo run -p pace-contracts --example compile_time` (set `PACE_ROOT` to compile elsewhere).

fn main() -> std::process::ExitCode {
    let start = std::time::Instant::now();
    match pace_contracts::compile() {
        Ok(artifacts) => {
            println!(
                "{} artifacts in {:?} (cache hit: {})",
                artifacts.ids().count(),
                start.elapsed(),
                artifacts.cache_hit()
            );
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
