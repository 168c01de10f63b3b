//! For tests of the PostgreSQL backend, here and in the integration tests.

/// A fresh, empty PostgreSQL database on the test cluster; panics when there is none, so a
/// run that was meant to cover PostgreSQL cannot pass without it.
pub fn postgres_database() -> String {
    let base = std::env::var("MUSTER_TEST_POSTGRES").expect(
        "MUSTER_TEST_POSTGRES is not set: `cargo xtask test` starts a PostgreSQL cluster for these tests",
    );
    let name = format!("muster_{}_{}", std::process::id(), rand::random::<u32>());
    // Made on a plain thread: the blocking client must not run on a runtime's.
    let admin = base.clone();
    let made = name.clone();
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&admin, postgres::NoTls).expect("connect");
        client
            .batch_execute(&format!("CREATE DATABASE {made}"))
            .expect("create database");
    })
    .join()
    .expect("create database");
    let (server, _) = base.rsplit_once('/').expect("a URL with a database");
    format!("{server}/{name}")
}
