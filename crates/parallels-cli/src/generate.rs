//! `parallels completions` and `parallels man`: shell completions and man
//! pages, generated from the flag definitions of [`crate::Cli`] (as
//! ripgrep generates its own), so that they say what `--help` says and
//! never fall behind a new flag.

use anyhow::{bail, Context, Result};
use clap::Args;
use clap_complete::Shell;
use parallels::read::shown;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum, value_name = "SHELL")]
    shell: Shell,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// The command whose page to print (`align`, `index build`, …); none:
    /// the page of `parallels` itself, which lists the commands.
    #[arg(value_name = "COMMAND", num_args = 0..)]
    command: Vec<String>,
    /// Write every page (`parallels.1`, `parallels-align.1`, …,
    /// `parallels-index-build.1`) into this folder instead of printing
    /// one.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    dir: Option<PathBuf>,
}

/// The `parallels` command as clap sees it (`cli`: [`crate::Cli`]'s, which
/// `main.rs` hands over), with the subcommands' names for man pages and
/// completions.
fn command(cli: clap::Command) -> clap::Command {
    let mut cmd = cli.disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Print the completion script of a shell to standard output.
pub fn completions(args: CompletionsArgs, cli: clap::Command) -> Result<ExitCode> {
    let mut cmd = command(cli);
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "parallels", &mut buf);
    crate::common::write_output(None, &buf)?;
    Ok(ExitCode::SUCCESS)
}

/// Print one man page (roff) to standard output, or write them all.
pub fn man(args: ManArgs, cli: clap::Command) -> Result<ExitCode> {
    let root = command(cli);
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create the folder", shown(dir)))?;
        parallels::plumbing::atomic::remove_stale(dir);
        write_pages(&root, dir).with_context(|| format!("{}: cannot write the man pages", shown(dir)))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut cmd = root;
    for name in &args.command {
        let Some(sub) = cmd.find_subcommand(name).cloned() else {
            let known: Vec<&str> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).map(|s| s.get_name()).collect();
            bail!("{name}: no such command; the pages are of {}", known.join(", "));
        };
        cmd = sub;
    }
    let mut buf = Vec::new();
    page(cmd).render(&mut buf)?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&buf)?;
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The man page of a command, its footer naming the release.
fn page(cmd: clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(cmd).source(format!("parallels {}", env!("CARGO_PKG_VERSION")))
}

/// Write the page of `cmd` and of every subcommand under it into `dir`
/// (`parallels.1`, `parallels-align.1`, `parallels-index-build.1`, …).
/// A symbolic link in `dir` under a page's name is replaced by the page,
/// never followed: the names are ours, not the user's, and a link placed
/// in a shared man folder must not make a run write elsewhere.
fn write_pages(cmd: &clap::Command, dir: &std::path::Path) -> std::io::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub, dir)?;
    }
    let man = page(cmd.clone());
    let mut buf = Vec::new();
    man.render(&mut buf)?;
    parallels::plumbing::atomic::write_atomic_unfollowed(&dir.join(man.get_filename()), &buf)
}
