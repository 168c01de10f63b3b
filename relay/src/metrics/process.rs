//! The process as the kernel sees it (Linux `/proc/self`): memory, open descriptors, CPU time,
//! and the runtime's live tasks: the figures a soak watches for leaks.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::MetricType;

use super::collect::gauge;

#[derive(Debug)]
pub struct Process;

/// Linux reports CPU time in clock ticks of 1/100 s on every architecture the relay builds for.
const TICKS_PER_SECOND: f64 = 100.0;
const PAGE_SIZE: u64 = 4096;

impl Collector for Process {
    fn encode(&self, mut e: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        if let Some(resident) = std::fs::read_to_string("/proc/self/statm")
            .ok()
            .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        {
            gauge(
                &mut e,
                "process_resident_memory_bytes",
                "Resident memory of the relay process",
                resident * PAGE_SIZE,
            )?;
        }
        if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
            gauge(
                &mut e,
                "process_open_fds",
                "File descriptors the relay has open (sockets included)",
                fds.count() as u64,
            )?;
        }
        if let Some(ticks) = std::fs::read_to_string("/proc/self/stat")
            .ok()
            .and_then(|s| cpu_ticks(&s))
        {
            let seconds = ConstCounter::new(ticks as f64 / TICKS_PER_SECOND);
            let metric = e.encode_descriptor(
                "process_cpu_seconds",
                "CPU time the relay has used, user and system",
                None,
                MetricType::Counter,
            )?;
            seconds.encode(metric)?;
        }
        // jemalloc's own count (the relay's allocator; in tests, which allocate with the
        // system's, it reads near zero): bytes in live allocations, and bytes in pages it
        // holds. Resident memory that grows while `allocated` stays flat is not a leak.
        if tikv_jemalloc_ctl::epoch::advance().is_ok() {
            for (name, help, read) in [
                (
                    "allocator_allocated_bytes",
                    "Bytes in live allocations (jemalloc)",
                    tikv_jemalloc_ctl::stats::allocated::read as fn() -> _,
                ),
                (
                    "allocator_resident_bytes",
                    "Bytes in pages the allocator holds resident (jemalloc)",
                    tikv_jemalloc_ctl::stats::resident::read,
                ),
            ] {
                if let Ok(bytes) = read() {
                    gauge(&mut e, name, help, bytes as u64)?;
                }
            }
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            gauge(
                &mut e,
                "runtime_tasks",
                "Tasks alive on the relay's async runtime",
                runtime.metrics().num_alive_tasks() as u64,
            )?;
        }
        Ok(())
    }
}

/// utime + stime from `/proc/self/stat` (fields 14 and 15, counted after the command name,
/// which is in parentheses and may hold spaces).
fn cpu_ticks(stat: &str) -> Option<u64> {
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

#[cfg(test)]
mod tests {
    #[test]
    fn cpu_time_is_read_after_a_command_name_with_spaces() {
        let stat = "42 (a b) S 1 42 42 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 5 1000 200";
        assert_eq!(super::cpu_ticks(stat), Some(10));
    }
}
