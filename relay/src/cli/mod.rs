//! The command-line tools, one module per subcommand, each with its `Args` and `run`. They use
//! the capabilities; no capability uses them (a test below holds the line).

pub mod backup;
pub mod config;
pub mod demo;
pub mod doctor;
pub mod history;
pub mod master;
pub mod master_server;
pub mod matches;
pub mod moment;
pub mod notify;
pub mod query;
pub mod rcon;
pub mod record;
mod relay_http;
pub mod scan;
pub mod serve;
pub mod spectate;
pub mod status;
pub mod tune;
pub mod wire;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    version,
    about = "Muster: a server browser and spectator relay for CoD:UO 1.51"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    Serve(Box<serve::Args>),
    Query(query::Args),
    Master(master::Args),
    Scan(scan::Args),
    Tune(tune::Args),
    Spectate(spectate::Args),
    Wire(wire::Args),
    Record(record::Args),
    MasterServer(master_server::Args),
    Status(status::Args),
    Rcon(rcon::Args),
    History(history::HistoryArgs),
    Seen(history::SeenArgs),
    Matches(matches::MatchesArgs),
    Stats(matches::StatsArgs),
    Leaderboard(matches::LeaderboardArgs),
    Backup(backup::BackupArgs),
    Restore(backup::RestoreArgs),
    Doctor(Box<doctor::DoctorArgs>),
    Moment(moment::Args),
    /// Print the API's OpenAPI 3.1 description, as `GET /api/openapi.json` serves it (the
    /// committed `docs/openapi.json` is this).
    Openapi,
    /// Read demo files.
    Demo {
        #[command(subcommand)]
        tool: demo::DemoTool,
    },
}

impl Command {
    /// Runs the subcommand to its end.
    pub async fn run(self) -> anyhow::Result<()> {
        match self {
            Self::Serve(args) => serve::run(*args).await,
            Self::Query(args) => query::run(args).await,
            Self::Master(args) => master::run(args).await,
            Self::Scan(args) => scan::run(args).await,
            Self::Tune(args) => tune::run(args).await,
            Self::Spectate(args) => spectate::run(args).await,
            Self::Wire(args) => wire::run(args),
            Self::Record(args) => record::run(args).await,
            Self::MasterServer(args) => master_server::run(args).await,
            Self::Status(args) => status::run(args).await,
            Self::Rcon(args) => rcon::run(args).await,
            Self::History(args) => history::history(args),
            Self::Seen(args) => history::seen(args),
            Self::Matches(args) => matches::list(args),
            Self::Stats(args) => matches::stats(args),
            Self::Leaderboard(args) => matches::leaderboard(args),
            Self::Backup(args) => backup::backup(args).await,
            Self::Restore(args) => backup::restore(args).await,
            Self::Doctor(args) => doctor::run(*args).await,
            Self::Moment(args) => moment::run(args).await,
            Self::Demo { tool } => demo::run(tool),
            Self::Openapi => {
                print!("{}", crate::openapi::description_json());
                Ok(())
            }
        }
    }

    /// The relay serves many pages at once; a one-shot tool does its work on one thread,
    /// which costs less CPU than handing every datagram between threads.
    pub fn wants_many_threads(&self) -> bool {
        matches!(self, Self::Serve(_))
    }
}

/// Writes command output; a reader that went away (`| head`) ends the output quietly instead
/// of panicking as `println!` does.
pub fn out(text: impl std::fmt::Display) -> anyhow::Result<()> {
    use std::io::Write;
    match writeln!(std::io::stdout().lock(), "{text}") {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        result => Ok(result?),
    }
}

/// Writes one JSON value as a line of command output.
pub fn out_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    out(serde_json::to_string(value)?)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every source file of the relay outside `cli/`, with its path.
    fn service_sources(dir: &Path, found: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "cli") {
                    service_sources(&path, found);
                }
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.file_name().is_some_and(|n| n != "main.rs")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                found.push((path.display().to_string(), text));
            }
        }
    }

    /// Whether Rust source names the `cli` module: in a path, or in a grouped `use crate::{..}`.
    fn imports_cli(text: &str) -> bool {
        let grouped = text.split("use crate::").skip(1).any(|rest| {
            let statement = rest.split(';').next().unwrap_or_default();
            statement
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| word == "cli")
        });
        grouped || text.contains("crate::cli") || text.contains("super::cli")
    }

    #[test]
    fn the_import_check_sees_every_form() {
        assert!(imports_cli("use crate::cli::query;"));
        assert!(imports_cli("use crate::{browse, cli::spectate};"));
        assert!(imports_cli("use crate::{\n    cli,\n    net,\n};"));
        assert!(imports_cli("let x = crate::cli::out(1);"));
        assert!(!imports_cli(
            "use crate::browse::client_ip;\n// the cli tools"
        ));
    }

    #[test]
    fn no_capability_imports_the_command_line_tools() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut sources = Vec::new();
        service_sources(&src, &mut sources);
        assert!(sources.len() > 20, "found only {} files", sources.len());
        let offenders: Vec<&str> = sources
            .iter()
            .filter(|(path, text)| !path.ends_with("lib.rs") && imports_cli(text))
            .map(|(path, _)| path.as_str())
            .collect();
        assert!(
            offenders.is_empty(),
            "services import the CLI: {offenders:?}"
        );
    }

    /// The code in Markdown: each line of a fenced block and each inline code span.
    fn code_in(markdown: &str) -> Vec<String> {
        let mut code = Vec::new();
        let mut fenced = false;
        for line in markdown.lines() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            } else if fenced {
                code.push(line.split(" #").next().unwrap_or_default().to_owned());
            } else {
                code.extend(line.split('`').skip(1).step_by(2).map(str::to_owned));
            }
        }
        code
    }

    /// Each `muster ...` command in a piece of code: its words up to the end of the command.
    fn commands_in(code: &str) -> Vec<Vec<String>> {
        let mut found = Vec::new();
        let mut rest = code;
        while let Some(at) = rest.find("muster ") {
            let before = rest[..at].chars().next_back();
            let tail = &rest[at + "muster ".len()..];
            rest = tail;
            if before.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_') {
                continue;
            }
            let words = tail
                .split(['|', ';', '&', ')'])
                .next()
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            found.push(words);
        }
        found
    }

    /// Checks one documented command against the real command line: the subcommand exists and
    /// every `--flag` named is one of its own (what `muster SUBCOMMAND --help` lists).
    fn check(words: &[String]) -> Result<(), String> {
        let root = super::config::command();
        let mut command = &root;
        let mut named = vec!["muster"];
        let mut words = words.iter().peekable();
        while let Some(word) = words.peek() {
            match command.find_subcommand(word.as_str()) {
                Some(sub) => {
                    named.push(word.as_str());
                    command = sub;
                    words.next();
                }
                None => break,
            }
        }
        if let Some(word) = words
            .peek()
            // `muster help COMMAND` is clap's own.
            .filter(|w| named.len() == 1 && !w.starts_with('-') && w.as_str() != "help")
        {
            return Err(format!("`muster {word}` is no command"));
        }
        let longs: Vec<String> = command
            .get_arguments()
            .flat_map(|a| {
                let aliases = a.get_all_aliases().unwrap_or_default();
                a.get_long().into_iter().chain(aliases).map(str::to_owned)
            })
            .chain(["help".to_owned(), "version".to_owned()])
            .collect();
        for word in words {
            let Some(flag) = word.strip_prefix("--") else {
                continue;
            };
            let flag = flag.split('=').next().unwrap_or_default();
            let flag: String = flag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if !flag.is_empty() && !longs.contains(&flag) {
                return Err(format!("`{}` has no --{flag}", named.join(" ")));
            }
        }
        Ok(())
    }

    #[test]
    fn every_command_and_flag_the_docs_name_exists() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
        for entry in std::fs::read_dir(root.join("docs")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
        let mut checked = 0;
        let mut wrong = Vec::new();
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            for code in code_in(&text) {
                for words in commands_in(&code) {
                    checked += 1;
                    if let Err(e) = check(&words) {
                        wrong.push(format!("{}: {e}", file.display()));
                    }
                }
            }
        }
        assert!(checked > 50, "found only {checked} documented commands");
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn the_docs_check_finds_a_flag_that_does_not_exist() {
        let words = |text: &str| commands_in(text).remove(0);
        assert_eq!(check(&words("muster query --json 1.2.3.4")), Ok(()));
        assert_eq!(check(&words("muster demo info x.dm_3")), Ok(()));
        assert_eq!(
            check(&words("muster query --jsn 1.2.3.4")),
            Err("`muster query` has no --jsn".into())
        );
        assert_eq!(
            code_in("say `muster serve --listen A` and\n```sh\nmuster status --json # --no\n```"),
            ["muster serve --listen A", "muster status --json"]
        );
        assert!(commands_in("muster-lab --servers 3").is_empty());
    }
}
