//! `muster`: the relay and its command-line tools. Each subcommand lives in `relay::cli`; this
//! file only parses and dispatches.

/// jemalloc, configured in `.cargo/config.toml` to give memory back soon after it is freed.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let command = relay::cli::config::parse()?.command;
    let runtime = if command.wants_many_threads() {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    }
    .enable_all()
    .build()?;
    runtime.block_on(command.run())
}
