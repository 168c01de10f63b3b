//! Every row of every table of a store, as text, sorted: to compare two stores whole.

/// Rows by table.
pub type Rows = std::collections::BTreeMap<String, Vec<String>>;

/// Every row of every table of a SQLite file, as text, by table.
pub fn sqlite(path: &std::path::Path) -> Rows {
    let conn = rusqlite::Connection::open(path).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    tables
        .into_iter()
        .map(|table| {
            let mut stmt = conn.prepare(&format!("SELECT * FROM {table}")).unwrap();
            let columns = stmt.column_count();
            let mut rows: Vec<String> = stmt
                .query_map([], |r| {
                    (0..columns)
                        .map(|i| {
                            r.get::<_, rusqlite::types::Value>(i)
                                .map(|v| format!("{v:?}"))
                        })
                        .collect::<Result<Vec<_>, _>>()
                        .map(|v| v.join("|"))
                })
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            rows.sort();
            (table, rows)
        })
        .collect()
}

/// Every row of every table of a PostgreSQL database, as text, by table.
pub fn postgres(url: &str) -> Rows {
    let mut db = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let tables: Vec<String> = db
        .query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    tables
        .into_iter()
        .map(|table| {
            let query = format!("SELECT t::text FROM {table} t ORDER BY 1");
            let rows = db.query(&query, &[]).unwrap();
            (table, rows.iter().map(|r| r.get(0)).collect())
        })
        .collect()
}
