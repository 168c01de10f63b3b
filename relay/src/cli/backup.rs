//! `muster backup` and `muster restore`: a consistent copy of a running relay's embedded store,
//! and that copy put back into a stopped relay's data dir.

use std::path::PathBuf;

use super::{out, out_json};
use crate::store::backup::{self, Summary};
use crate::store::StoreArgs;

/// Copy the store of a relay (running or not) to a new file, checked before it is kept.
#[derive(clap::Args, Debug)]
pub struct BackupArgs {
    /// The new file to write; an existing file is never overwritten.
    #[arg(long, value_name = "FILE")]
    pub to: PathBuf,
    /// Print what the backup holds as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Put a backup in place of a stopped relay's store (the file it replaces is kept beside it).
#[derive(clap::Args, Debug)]
pub struct RestoreArgs {
    /// The backup, as `muster backup` wrote it.
    #[arg(long, value_name = "FILE")]
    pub from: PathBuf,
    /// The data dir of the relay to restore into.
    #[arg(long, env = "MUSTER_DATA_DIR", default_value = "muster-data")]
    pub data_dir: PathBuf,
    /// Print what was restored as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What a PostgreSQL store's operator runs instead: the tools that know its format (the URL
/// shown without its password).
fn postgres_tools(url: &str) -> String {
    let url = super::config::without_password(url);
    format!(
        "a PostgreSQL store is backed up with PostgreSQL's own tools: \
         pg_dump --format=custom --file=FILE '{url}', and restored into an empty database with \
         pg_restore --no-owner --dbname='URL' FILE (docs/operator.md, Backup and restore)"
    )
}

pub async fn backup(args: BackupArgs) -> anyhow::Result<()> {
    if let Some(url) = &args.store.database {
        anyhow::bail!(postgres_tools(url));
    }
    let BackupArgs { to, json, store } = args;
    let taken = tokio::task::spawn_blocking(move || backup::backup(&store.data_dir, &to)).await??;
    if json {
        return out_json(&taken);
    }
    out(format!("backed up to {}", describe(&taken)))
}

pub async fn restore(args: RestoreArgs) -> anyhow::Result<()> {
    let RestoreArgs {
        from,
        data_dir,
        json,
    } = args;
    let restored = tokio::task::spawn_blocking(move || backup::restore(&from, &data_dir)).await??;
    if json {
        return out_json(&restored);
    }
    out(format!("restored {}", describe(&restored.summary)))?;
    if let Some(kept) = &restored.kept_previous {
        out(format!("the store it replaced is kept as {kept}"))?;
    }
    Ok(())
}

/// One line: where, how big, which schema, and the rows that matter most.
fn describe(summary: &Summary) -> String {
    let rows: Vec<String> = summary
        .tables
        .iter()
        .filter(|(name, _)| name.as_str() != "schema_migrations")
        .map(|(name, rows)| format!("{name} {rows}"))
        .collect();
    format!(
        "{} ({} bytes, schema version {}): {}",
        summary.file,
        summary.bytes,
        summary.schema_version,
        rows.join(", ")
    )
}
