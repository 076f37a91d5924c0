//! End-to-end tests of the command line as a whole: the top-level help and
//! version. Each command's own flags are tested in its file (`align_cli.rs`,
//! `eval.rs`, `scan.rs`, `dedup.rs`).

mod util;

use util::Sandbox;

#[test]
fn top_level_help_lists_the_commands() {
    let sb = Sandbox::new();
    let run = sb.run(&["--help"]);
    run.success();
    for command in ["align", "eval"] {
        assert!(run.stdout_str().lines().any(|l| l.trim_start().starts_with(command)), "{run}");
    }
    let version = sb.run(&["--version"]);
    version.success();
    assert_eq!(version.stdout_str(), format!("parallels {}\n", env!("CARGO_PKG_VERSION")));
}
