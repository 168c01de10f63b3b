//! Backups of the embedded store. SQLite's online backup API copies the file inside one read
//! transaction, so a copy taken while the relay writes is a snapshot of one committed moment;
//! the copy is checked (integrity, schema version, rows per table) before it is called a
//! backup, and appears under its name only when whole. A restore puts a checked copy in place
//! of a stopped relay's file and keeps the file it replaces beside it.
//!
//! A relay holds `muster.lock` in its data dir while it runs (an advisory lock the kernel
//! drops when the process dies, even by SIGKILL), so a restore, or a second relay, cannot
//! write under it.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

use super::{Result, StoreError};

/// The store's file in a data dir.
pub const FILE: &str = "muster.db";
const LOCK: &str = "muster.lock";

/// What a checked copy of the store holds.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Summary {
    pub file: String,
    pub bytes: u64,
    pub schema_version: i64,
    /// Rows per table, by name.
    pub tables: BTreeMap<String, u64>,
}

/// What a restore did.
#[derive(Clone, Debug, Serialize)]
pub struct Restored {
    #[serde(flatten)]
    pub summary: Summary,
    /// Where the file it replaced now is (absent when the data dir had none).
    pub kept_previous: Option<String>,
}

/// The data dir's lock, held while a relay (or a restore) uses the store.
#[derive(Debug)]
pub struct DataDirLock {
    /// Held open: closing it releases the lock.
    _file: File,
}

/// Takes the data dir's lock, or names the process holding it.
pub fn lock_data_dir(dir: &Path) -> Result<DataDirLock> {
    let io = |error| StoreError::Io {
        path: dir.join(LOCK).display().to_string(),
        error,
    };
    std::fs::create_dir_all(dir).map_err(|error| StoreError::DataDir {
        path: dir.display().to_string(),
        error,
    })?;
    let mut file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join(LOCK))
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => {
            file.set_len(0).map_err(io)?;
            write!(file, "{}", std::process::id()).map_err(io)?;
            Ok(DataDirLock { _file: file })
        }
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut pid = String::new();
            file.read_to_string(&mut pid).map_err(io)?;
            Err(StoreError::InUse {
                dir: dir.display().to_string(),
                pid: pid.trim().to_owned(),
            })
        }
        Err(std::fs::TryLockError::Error(error)) => Err(io(error)),
    }
}

/// Copies the store in `data_dir` to `to` (a new file) while a relay may be writing it.
pub fn backup(data_dir: &Path, to: &Path) -> Result<Summary> {
    let db = data_dir.join(FILE);
    if !db.exists() {
        return Err(StoreError::NotAStore {
            path: db.display().to_string(),
            why: "there is no such file".into(),
        });
    }
    if to.exists() {
        return Err(StoreError::Exists {
            path: to.display().to_string(),
        });
    }
    let partial = sibling(to, ".partial");
    let _ = std::fs::remove_file(&partial);
    let result = (|| {
        let source = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
        source.busy_timeout(Duration::from_secs(10))?;
        let mut copy = Connection::open(&partial)?;
        {
            // Every page in one step: one read transaction, so one committed moment.
            let copying = rusqlite::backup::Backup::new(&source, &mut copy)?;
            while copying.step(-1)? != rusqlite::backup::StepResult::Done {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        // One self-contained file: the copy needs no -wal beside it.
        copy.pragma_update(None, "journal_mode", "DELETE")?;
        summary(&copy, &partial)?;
        drop(copy);
        durable(&partial)?;
        std::fs::rename(&partial, to).map_err(|error| StoreError::Io {
            path: to.display().to_string(),
            error,
        })?;
        sync_dir(to)?;
        check(to)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result
}

/// Puts the backup `from` in place of the store in `data_dir`, whose relay must be stopped.
pub fn restore(from: &Path, data_dir: &Path) -> Result<Restored> {
    let summary = check(from)?;
    let _lock = lock_data_dir(data_dir)?;
    let db = data_dir.join(FILE);
    let incoming = sibling(&db, ".restoring");
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |error| StoreError::Io { path, error }
    };
    std::fs::copy(from, &incoming).map_err(io(&incoming))?;
    durable(&incoming)?;
    let mut kept_previous = None;
    if db.exists() {
        // The old file moves with its -wal and -shm: a file paired with another's WAL is corrupt.
        let kept = sibling(&db, &format!(".before-restore-{}", crate::net::unix_ms()));
        for suffix in ["", "-wal", "-shm"] {
            let (old, new) = (sibling(&db, suffix), sibling(&kept, suffix));
            if old.exists() {
                std::fs::rename(&old, &new).map_err(io(&old))?;
            }
        }
        kept_previous = Some(kept.display().to_string());
    }
    std::fs::rename(&incoming, &db).map_err(io(&db))?;
    sync_dir(&db)?;
    Ok(Restored {
        summary: Summary {
            file: db.display().to_string(),
            ..summary
        },
        kept_previous,
    })
}

/// Opens a copy read-only and checks it is a whole Muster store this relay can open.
pub fn check(path: &Path) -> Result<Summary> {
    let conn =
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(|e| {
            StoreError::NotAStore {
                path: path.display().to_string(),
                why: e.to_string(),
            }
        })?;
    summary(&conn, path)
}

fn summary(conn: &Connection, path: &Path) -> Result<Summary> {
    let not_a_store = |why: String| StoreError::NotAStore {
        path: path.display().to_string(),
        why,
    };
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .map_err(|e| not_a_store(e.to_string()))?;
    if integrity != "ok" {
        return Err(not_a_store(format!("integrity check: {integrity}")));
    }
    let version: Option<i64> = conn
        .query_row(super::sql::VERSION, [], |r| r.get(0))
        .map_err(|_| not_a_store("it has no schema_migrations table".into()))?;
    let version = version.unwrap_or(0);
    if version > super::sqlite::VERSIONS {
        return Err(StoreError::TooNew {
            found: version,
            known: super::sqlite::VERSIONS,
        });
    }
    let names: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut tables = BTreeMap::new();
    for name in names {
        let rows: i64 = conn.query_row(&format!("SELECT count(*) FROM \"{name}\""), [], |r| {
            r.get(0)
        })?;
        tables.insert(name, super::to_u64(rows));
    }
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Ok(Summary {
        file: path.display().to_string(),
        bytes,
        schema_version: version,
        tables,
    })
}

/// `path` with `suffix` appended to its file name.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Flushes a file to disk, so a rename never publishes a file whose bytes a power cut loses.
fn durable(path: &Path) -> Result<()> {
    let io = |error| StoreError::Io {
        path: path.display().to_string(),
        error,
    };
    File::open(path).and_then(|f| f.sync_all()).map_err(io)
}

/// Flushes a directory entry (the rename itself).
fn sync_dir(path: &Path) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|error| StoreError::Io {
            path: dir.display().to_string(),
            error,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Batch, Sample, StoreArgs};

    fn store_in(dir: &Path) -> Box<dyn crate::store::Store> {
        StoreArgs {
            data_dir: dir.to_owned(),
            database: None,
        }
        .open()
        .unwrap()
    }

    fn sample(at_ms: u64) -> Sample {
        Sample {
            at_ms,
            clients: 3,
            bots: 1,
            max_clients: 20,
            up: true,
        }
    }

    #[test]
    fn a_backup_restores_every_row_and_keeps_the_file_it_replaces() {
        let (live, elsewhere) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut store = store_in(live.path());
        let batch = Batch {
            samples: (0..50)
                .map(|i| ("1.2.3.4:28960".into(), sample(i)))
                .collect(),
            ..Batch::default()
        };
        store.write(&batch).unwrap();
        let audit = crate::store::AuditEntry {
            at_ms: 7,
            client: "127.0.0.1".into(),
            server: "1.2.3.4:28960".into(),
            command: "status".into(),
            outcome: "output".into(),
            round_trip_ms: 40,
        };
        store.put_audit(std::slice::from_ref(&audit)).unwrap();
        let to = live.path().join("copy.db");
        let taken = backup(live.path(), &to).unwrap();
        assert_eq!(taken.tables["samples"], 50);
        assert_eq!(taken.schema_version, super::super::sqlite::VERSIONS);
        // Written after the backup: not in it.
        store.write(&batch).unwrap();
        assert!(matches!(
            backup(live.path(), &to),
            Err(StoreError::Exists { .. })
        ));

        // Into a data dir with a store of its own: that one is kept aside, whole.
        drop(store_in(elsewhere.path()));
        let restored = restore(&to, elsewhere.path()).unwrap();
        assert_eq!(restored.summary.tables, taken.tables);
        let kept = PathBuf::from(restored.kept_previous.unwrap());
        assert_eq!(check(&kept).unwrap().tables["samples"], 0);
        let mut reopened = store_in(elsewhere.path());
        assert_eq!(reopened.samples(None, 0, u64::MAX / 2).unwrap().len(), 50);
        assert_eq!(reopened.audit(None, 10).unwrap(), [audit]);
    }

    #[test]
    fn a_restore_refuses_a_running_relays_dir_and_what_is_not_a_store() {
        let dir = tempfile::tempdir().unwrap();
        drop(store_in(dir.path()));
        let copy = dir.path().join("copy.db");
        backup(dir.path(), &copy).unwrap();
        let held = lock_data_dir(dir.path()).unwrap();
        let error = restore(&copy, dir.path()).unwrap_err().to_string();
        assert!(
            error.contains(&format!("process {}", std::process::id())),
            "{error}"
        );
        drop(held);
        restore(&copy, dir.path()).unwrap();

        let junk = dir.path().join("junk.db");
        std::fs::write(
            &junk,
            b"not a database at all, though long enough to look like one",
        )
        .unwrap();
        let error = restore(&junk, dir.path()).unwrap_err().to_string();
        assert!(error.contains("not a Muster store"), "{error}");
        let empty = dir.path().join("empty.db");
        drop(Connection::open(&empty).unwrap());
        let error = check(&empty).unwrap_err().to_string();
        assert!(error.contains("schema_migrations"), "{error}");
        // The live store is untouched by the refusals.
        assert_eq!(
            check(&dir.path().join(FILE)).unwrap().schema_version,
            super::super::sqlite::VERSIONS
        );
    }
}
