//! `muster serve`'s settings come from three places, each setting under one name: a flag
//! (`--refresh-interval 20`), an environment variable (`MUSTER_REFRESH_INTERVAL=20`), and a
//! TOML file named by `--config` (`refresh-interval = 20`). A flag beats the environment,
//! which beats the file, which beats the default. The file is read into the same flags, so
//! one parser validates all three, and an error names the key it came from.
//! `--print-config` prints the effective settings as a file `--config` would take.

use std::ffi::OsString;
use std::path::Path;

use anyhow::{bail, Context};
use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, CommandFactory, FromArgMatches};

use super::Cli;

/// Settings whose values are secrets: `--print-config` shows only that they are set.
const SECRETS: &[&str] = &["operator-token"];
/// Settings holding URLs whose passwords `--print-config` hides.
const URLS: &[&str] = &["database", "cluster"];
/// Repeatable settings whose values hold commas themselves (an environment variable gives
/// one of them).
const COMMA_VALUES: &[&str] = &["overview"];
/// `muster serve`'s (and `muster doctor`'s) own switches, which are not settings.
const NOT_SETTINGS: &[&str] = &["config", "print-config", "help", "json"];
/// The subcommands that take the relay's settings: the relay, and the check of them.
const TAKE_SETTINGS: &[&str] = &["serve", "doctor"];

/// The environment variable of a flag: `--refresh-interval` is `MUSTER_REFRESH_INTERVAL`.
pub fn env_name(long: &str) -> String {
    format!("MUSTER_{}", long.to_uppercase().replace('-', "_"))
}

/// The command line, with every `muster serve` setting also read from its environment
/// variable (a repeatable one as a comma-separated list).
pub fn command() -> clap::Command {
    TAKE_SETTINGS.iter().fold(Cli::command(), |root, name| {
        root.mut_subcommand(name, with_env)
    })
}

/// A settings-taking subcommand with each setting's environment variable.
fn with_env(serve: clap::Command) -> clap::Command {
    let ids: Vec<(String, String)> = serve
        .get_arguments()
        .filter_map(|a| Some((a.get_id().to_string(), a.get_long()?.to_owned())))
        .collect();
    ids.into_iter()
        .filter(|(_, long)| !NOT_SETTINGS.contains(&long.as_str()))
        .fold(serve, |serve, (id, long)| {
            serve.mut_arg(id, |arg| {
                let repeatable = matches!(arg.get_action(), ArgAction::Append);
                let arg = if arg.get_env().is_none() {
                    arg.env(env_name(&long))
                } else {
                    arg
                };
                if repeatable && !COMMA_VALUES.contains(&long.as_str()) {
                    arg.value_delimiter(',')
                } else {
                    arg
                }
            })
        })
}

/// Parses the command line, the environment and `--config`'s file; prints the effective
/// settings and exits for `--print-config`; exits with clap's message on a bad flag.
pub fn parse() -> anyhow::Result<Cli> {
    let args: Vec<OsString> = std::env::args_os().collect();
    let (matches, from_file) = merged(command(), args)?;
    if let Some(("serve", serve)) = matches.subcommand() {
        if serve.get_flag("print_config") {
            print!("{}", render(&command(), serve, &from_file));
            std::process::exit(0);
        }
    }
    Ok(Cli::from_arg_matches(&matches)?)
}

/// The matches once `--config`'s file has filled what neither a flag nor the environment
/// set, and the settings the file gave.
pub fn merged(
    command: clap::Command,
    args: Vec<OsString>,
) -> anyhow::Result<(ArgMatches, Vec<String>)> {
    let matches = command
        .clone()
        .try_get_matches_from(&args)
        .unwrap_or_else(|e| e.exit());
    let Some((name, serve)) = matches
        .subcommand()
        .filter(|(name, _)| TAKE_SETTINGS.contains(name))
    else {
        return Ok((matches, Vec::new()));
    };
    let Some(path) = serve.get_one::<String>("config") else {
        return Ok((matches, Vec::new()));
    };
    let (extra, from_file) = file_args(&command, name, serve, Path::new(path))?;
    if extra.is_empty() {
        return Ok((matches, from_file));
    }
    let mut all = args;
    all.extend(extra.into_iter().map(OsString::from));
    let matches = command
        .try_get_matches_from(all)
        .unwrap_or_else(|e| e.exit());
    Ok((matches, from_file))
}

fn serve_command(command: &clap::Command) -> &clap::Command {
    command
        .find_subcommand("serve")
        .expect("muster has a serve command")
}

/// The flags a file's settings stand for, each checked on its own so an error names its key,
/// and the settings they are. Settings a flag or the environment already gave are left out
/// (they win).
fn file_args(
    command: &clap::Command,
    name: &str,
    given: &ArgMatches,
    path: &Path,
) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the configuration {}", path.display()))?;
    let table: toml::Table = text
        .parse()
        .with_context(|| format!("{}: not a TOML file", path.display()))?;
    let serve = command
        .find_subcommand(name)
        .expect("a subcommand that takes settings");
    let (mut all, mut from_file) = (Vec::new(), Vec::new());
    for (key, value) in &table {
        let long = key.replace('_', "-");
        let in_file = |why: String| anyhow::anyhow!("{}: key `{key}`: {why}", path.display());
        let Some(arg) = serve
            .get_arguments()
            .find(|a| a.get_long() == Some(long.as_str()))
            .filter(|_| !NOT_SETTINGS.contains(&long.as_str()))
        else {
            bail!(in_file(
                "no such setting (see `muster serve --help`)".into()
            ));
        };
        let id = arg.get_id().as_str();
        if matches!(
            given.value_source(id),
            Some(ValueSource::CommandLine | ValueSource::EnvVariable)
        ) {
            continue;
        }
        let flag = matches!(arg.get_action(), ArgAction::SetTrue);
        let args = to_args(&long, value, flag).map_err(in_file)?;
        // Checked alone, so clap's complaint is about this key only.
        let mut alone = vec!["muster".to_owned(), name.to_owned()];
        alone.extend(args.iter().cloned());
        if let Err(e) = command.clone().try_get_matches_from(alone) {
            let said = e.kind().as_str().unwrap_or("invalid value").to_owned();
            let detail = e.to_string();
            let first = detail
                .lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("error: ");
            bail!(in_file(format!("{said}: {first}")));
        }
        all.extend(args);
        from_file.push(long);
    }
    Ok((all, from_file))
}

/// A TOML value as the flags it stands for.
fn to_args(long: &str, value: &toml::Value, flag: bool) -> Result<Vec<String>, String> {
    use toml::Value;
    if flag {
        return match value {
            Value::Boolean(true) => Ok(vec![format!("--{long}")]),
            Value::Boolean(false) => Ok(Vec::new()),
            _ => Err("takes true or false".into()),
        };
    }
    let one = |v: &Value| match v {
        Value::String(s) => Ok(s.clone()),
        Value::Integer(i) => Ok(i.to_string()),
        Value::Float(f) => Ok(f.to_string()),
        Value::Boolean(_) => Err("takes a value, not true or false".to_owned()),
        _ => Err("takes a string or a number".to_owned()),
    };
    let values = match value {
        Value::Array(items) => items.iter().map(one).collect::<Result<Vec<_>, _>>()?,
        v => vec![one(v)?],
    };
    Ok(values
        .into_iter()
        .map(|v| format!("--{long}={v}"))
        .collect())
}

/// Hides the password of `scheme://user:password@host`.
pub(super) fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.split_once('@') {
        Some((credentials, host)) if credentials.contains(':') => {
            let user = credentials.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}")
        }
        _ => url.to_owned(),
    }
}

fn toml_value(raw: &str) -> toml::Value {
    raw.parse::<i64>()
        .map(toml::Value::Integer)
        .unwrap_or_else(|_| toml::Value::String(raw.to_owned()))
}

/// The effective settings, as a file `--config` takes, with where each came from: each under
/// its help, and commented out where it is the default, so the file pins only what was chosen
/// and a later default reaches it (the Debian package's `/etc/muster/muster.toml` is this text).
pub fn render(command: &clap::Command, serve: &ArgMatches, from_file: &[String]) -> String {
    let mut out = String::from(
        "# muster serve: the effective configuration (`muster serve --print-config`).\n\
         # A line commented out holds the default; uncomment it to change the setting.\n",
    );
    for arg in serve_command(command).get_arguments() {
        let (Some(long), id) = (arg.get_long(), arg.get_id().as_str()) else {
            continue;
        };
        if NOT_SETTINGS.contains(&long) {
            continue;
        }
        let source = match serve.value_source(id) {
            _ if from_file.iter().any(|f| f == long) => "file",
            Some(ValueSource::CommandLine) => "flag",
            Some(ValueSource::EnvVariable) => "environment",
            Some(ValueSource::DefaultValue) => "default",
            _ => "unset",
        };
        let value = if matches!(arg.get_action(), ArgAction::SetTrue) {
            Some(toml::Value::Boolean(serve.get_flag(id)))
        } else {
            let raw: Vec<String> = serve
                .get_raw(id)
                .into_iter()
                .flatten()
                .map(|v| v.to_string_lossy().into_owned())
                .map(|v| match () {
                    _ if SECRETS.contains(&long) => "(set, not shown)".to_owned(),
                    _ if URLS.contains(&long) => without_password(&v),
                    _ => v,
                })
                .collect();
            match (raw.len(), matches!(arg.get_action(), ArgAction::Append)) {
                (0, _) => None,
                (_, true) => Some(toml::Value::Array(
                    raw.iter().map(|v| toml_value(v)).collect(),
                )),
                _ => Some(toml_value(&raw[0])),
            }
        };
        if let Some(help) = arg.get_help() {
            let help = help.to_string();
            out.push_str(&format!(
                "\n# {}\n",
                help.lines().next().unwrap_or_default()
            ));
        }
        match value {
            Some(value) if source == "default" => {
                out.push_str(&format!("# {long} = {value}  # default\n"))
            }
            Some(value) => out.push_str(&format!("{long} = {value}  # {source}\n")),
            None => out.push_str(&format!("# {long} (unset)\n")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    fn serve_matches(file: &str, extra: &[&str]) -> anyhow::Result<ArgMatches> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("muster.toml");
        std::fs::write(&path, file).unwrap();
        let mut list = vec!["muster", "serve", "--config", path.to_str().unwrap()];
        list.extend(extra);
        let (matches, _) = merged(command(), args(&list))?;
        Ok(matches.subcommand_matches("serve").unwrap().clone())
    }

    #[test]
    fn a_file_fills_what_flags_did_not_set_and_flags_win() {
        let file = "refresh-interval = 7\nmaster = [\"a.example:20610\", \"b.example:20610\"]\n\
                    no_lan = true\nlisten = [\"127.0.0.1:0\", \"[::1]:0\"]\n";
        let serve = serve_matches(file, &["--refresh-interval", "9"]).unwrap();
        assert_eq!(serve.get_one::<u64>("refresh_interval"), Some(&9));
        let masters: Vec<&String> = serve.get_many("masters").unwrap().collect();
        assert_eq!(masters, ["a.example:20610", "b.example:20610"]);
        assert!(serve.get_flag("no_lan"));
        let listen: Vec<&std::net::SocketAddr> = serve.get_many("listen").unwrap().collect();
        assert_eq!(listen.len(), 2);
        assert!(listen[1].is_ipv6());
    }

    #[test]
    fn errors_name_the_key_they_came_from() {
        let unknown = serve_matches("refresh-intervall = 7\n", &[]).unwrap_err();
        assert!(
            unknown
                .to_string()
                .contains("key `refresh-intervall`: no such setting"),
            "{unknown}"
        );
        let bad = serve_matches("refresh-interval = \"soon\"\n", &[]).unwrap_err();
        assert!(bad.to_string().contains("key `refresh-interval`"), "{bad}");
        assert!(bad.to_string().contains("soon"), "{bad}");
        let flag = serve_matches("no-lan = \"yes\"\n", &[]).unwrap_err();
        assert!(
            flag.to_string()
                .contains("key `no-lan`: takes true or false"),
            "{flag}"
        );
        let broken = serve_matches("refresh-interval = \n", &[]).unwrap_err();
        assert!(broken.to_string().contains("not a TOML file"), "{broken}");
    }

    #[test]
    fn the_operators_guide_documents_every_setting() {
        let guide = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/operator.md");
        let readme = std::fs::read_to_string(guide).unwrap();
        let command = command();
        let missing: Vec<&str> = serve_command(&command)
            .get_arguments()
            .filter_map(|a| a.get_long())
            .filter(|long| !NOT_SETTINGS.contains(long))
            .filter(|long| !readme.contains(&format!("| `--{long}` | `{}` |", env_name(long))))
            .collect();
        assert!(
            missing.is_empty(),
            "docs/operator.md's settings table lacks {missing:?}"
        );
    }

    #[test]
    fn every_setting_has_its_environment_variable() {
        let command = command();
        let serve = serve_command(&command);
        for arg in serve.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if NOT_SETTINGS.contains(&long) {
                continue;
            }
            let env = arg
                .get_env()
                .unwrap_or_else(|| panic!("--{long} has no env"));
            assert_eq!(env.to_str().unwrap(), env_name(long), "--{long}");
        }
    }

    #[test]
    fn the_printed_configuration_is_a_file_that_reads_back_the_same_and_hides_secrets() {
        let serve = serve_matches(
            "operator-token = \"hunter2\"\ndatabase = \"postgres://muster:pw@db:5432/m\"\n\
             master = [\"m.example:20610\"]\nrefresh-interval = 11\n",
            &[],
        )
        .unwrap();
        let printed = render(&command(), &serve, &["refresh-interval".to_owned()]);
        assert!(
            !printed.contains("hunter2") && !printed.contains(":pw@"),
            "{printed}"
        );
        assert!(printed.contains("database = \"postgres://muster:***@db:5432/m\""));
        assert!(
            printed.contains("refresh-interval = 11  # file"),
            "{printed}"
        );
        assert!(
            printed.contains("\n# lease-ttl = 2  # default\n"),
            "{printed}"
        );
        assert!(
            printed.contains("\n# Seconds a lease (the poller's, a hub's) lives without renewal"),
            "each setting under its help: {printed}"
        );
        // Without the secrets, what is printed is a configuration that parses to the same.
        let reread: String = printed
            .lines()
            .filter(|l| !l.starts_with("operator-token") && !l.starts_with("database"))
            .map(|l| format!("{l}\n"))
            .collect();
        let again = serve_matches(&reread, &[]).unwrap();
        assert_eq!(again.get_one::<u64>("refresh_interval"), Some(&11));
        let masters: Vec<&String> = again.get_many("masters").unwrap().collect();
        assert_eq!(masters, ["m.example:20610"]);
    }
}
