//! Demo recording on disk: the files a recording client writes (`cod::client` makes the
//! records, one file per map), named as `cg_autodemo` names them (date and time first), and
//! bounded: a recording stops, with its end marker, before its files pass the size limit.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use protocol::cod::client::{Client, DemoOutput};
use protocol::cod::demo::{END_MARKER, EXTENSION};
use serde::Serialize;

/// One demo file a recording wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DemoFile {
    pub name: String,
    pub path: PathBuf,
    pub map: String,
    pub bytes: u64,
    /// Unix seconds the file began.
    pub started: u64,
}

/// Hub recording (`--record-dir`, `--record-max-mb`).
#[derive(Clone, Debug)]
pub struct RecordConfig {
    pub dir: PathBuf,
    /// One recording's files together stay under this.
    pub max_bytes: u64,
}

/// Where a recording writes and how much it may.
#[derive(Clone, Debug)]
pub struct RecordTarget {
    pub dir: PathBuf,
    /// The server, in file names (`127.0.0.1_28960`).
    pub server: String,
    /// The first file's path, if chosen (`muster record --out`); later maps add `-MAP`.
    pub out: Option<PathBuf>,
    /// All files of the recording together stay under this.
    pub max_bytes: u64,
}

struct Open {
    file: BufWriter<File>,
    demo: DemoFile,
    /// The limit was reached: only the end marker is still written.
    capped: bool,
}

/// Takes a recording client's output and writes it to files.
pub struct Recorder {
    target: RecordTarget,
    open: Option<Open>,
    written: Vec<DemoFile>,
    total: u64,
    /// Why the recording stopped itself.
    pub stopped: Option<String>,
}

/// `[A-Za-z0-9_-]` of `text`, the rest as `_`: safe in any file system.
fn file_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `YYYYMMDD-HHMMSS` in UTC.
fn stamp(unix: u64) -> String {
    let format = time::macros::format_description!("[year][month][day]-[hour][minute][second]");
    time::OffsetDateTime::from_unix_timestamp(unix as i64)
        .ok()
        .and_then(|t| t.format(format).ok())
        .unwrap_or_default()
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Recorder {
    pub fn new(target: RecordTarget) -> Self {
        Self {
            target,
            open: None,
            written: Vec::new(),
            total: 0,
            stopped: None,
        }
    }

    /// The files finished so far.
    pub fn written(&self) -> &[DemoFile] {
        &self.written
    }

    /// The file being written, if any.
    pub fn current(&self) -> Option<&DemoFile> {
        self.open.as_ref().map(|o| &o.demo)
    }

    fn path_for(&self, map: &str, started: u64) -> PathBuf {
        let map = file_safe(map);
        match &self.target.out {
            Some(out) if self.written.is_empty() => out.clone(),
            Some(out) => {
                let stem = out.file_stem().unwrap_or_default().to_string_lossy();
                out.with_file_name(format!("{stem}-{map}.{EXTENSION}"))
            }
            None => self.target.dir.join(format!(
                "{}-{}-{map}.{EXTENSION}",
                stamp(started),
                file_safe(&self.target.server)
            )),
        }
    }

    /// Writes what `client` recorded; past the limit it stops the recording.
    pub fn drain(&mut self, client: &mut Client) -> std::io::Result<()> {
        while let Some(output) = client.poll_demo() {
            match output {
                DemoOutput::Begin { map } => self.begin(&map)?,
                DemoOutput::Data(bytes) => {
                    let Some(open) = self.open.as_mut() else {
                        continue;
                    };
                    let end = bytes[..] == END_MARKER;
                    if !end
                        && self.total + (bytes.len() + END_MARKER.len()) as u64
                            > self.target.max_bytes
                    {
                        if !open.capped {
                            open.capped = true;
                            self.stopped = Some(format!(
                                "reached the limit of {} MB",
                                self.target.max_bytes / 1_000_000
                            ));
                            client.stop_recording();
                        }
                        continue;
                    }
                    if open.capped && !end {
                        continue;
                    }
                    open.file.write_all(&bytes)?;
                    open.demo.bytes += bytes.len() as u64;
                    self.total += bytes.len() as u64;
                }
                DemoOutput::End => self.finish()?,
            }
        }
        Ok(())
    }

    fn begin(&mut self, map: &str) -> std::io::Result<()> {
        self.finish()?;
        let started = unix_now();
        let path = self.path_for(map, started);
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        let file = BufWriter::new(File::create(&path)?);
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        self.open = Some(Open {
            file,
            demo: DemoFile {
                name,
                path,
                map: map.into(),
                bytes: 0,
                started,
            },
            capped: false,
        });
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        if let Some(mut open) = self.open.take() {
            open.file.flush()?;
            self.written.push(open.demo);
        }
        Ok(())
    }

    /// Flushes what is written so far (a file being recorded stays readable up to its last
    /// whole record).
    pub fn flush(&mut self) -> std::io::Result<()> {
        match self.open.as_mut() {
            Some(open) => open.file.flush(),
            None => Ok(()),
        }
    }
}

/// The finished demos under `dir`, newest first: every `.dm_3` not being written.
pub fn finished(dir: &Path, busy: &[PathBuf]) -> Vec<DemoFile> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut demos: Vec<DemoFile> = entries
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            let name = path.file_name()?.to_str()?.to_owned();
            if !name.ends_with(&format!(".{EXTENSION}")) || busy.contains(&path) {
                return None;
            }
            let meta = entry.metadata().ok()?;
            let started = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs());
            // `DATE-TIME-SERVER-MAP.dm_3`, as this relay names them.
            let map = name
                .trim_end_matches(&format!(".{EXTENSION}"))
                .splitn(4, '-')
                .nth(3)
                .unwrap_or_default()
                .to_owned();
            Some(DemoFile {
                name,
                path,
                map,
                bytes: meta.len(),
                started,
            })
        })
        .collect();
    demos.sort_by(|a, b| b.started.cmp(&a.started).then(b.name.cmp(&a.name)));
    demos
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_utc_dates() {
        assert_eq!(stamp(0), "19700101-000000");
        assert_eq!(stamp(1_796_132_524), "20261201-134204");
        assert_eq!(stamp(951_782_400), "20000229-000000");
    }

    #[test]
    fn names_are_file_safe() {
        assert_eq!(file_safe("mp_foy/../x y"), "mp_foy____x_y");
    }
}
