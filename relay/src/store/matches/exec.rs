//! SQL both backends run alike: the match tables are written and read by one piece of code
//! through [`Exec`], which binds [`Value`]s and reads rows as [`Cell`]s on either connection,
//! so the two backends differ only in their schema's spelling.

use bytes::BytesMut;
use postgres::types::{IsNull, ToSql, Type};

use crate::store::{Result, StoreError};

/// A parameter.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    Int(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
    Null,
}

/// A column of a row read.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
    Null,
}

impl Cell {
    pub fn int(&self) -> i64 {
        match self {
            Self::Int(v) => *v,
            Self::Real(v) => *v as i64,
            _ => 0,
        }
    }

    pub fn opt_int(&self) -> Option<i64> {
        (!matches!(self, Self::Null)).then(|| self.int())
    }

    pub fn real(&self) -> f64 {
        match self {
            Self::Real(v) => *v,
            Self::Int(v) => *v as f64,
            _ => 0.0,
        }
    }

    pub fn text(&self) -> String {
        self.opt_text().unwrap_or_default()
    }

    pub fn opt_text(&self) -> Option<String> {
        match self {
            Self::Text(v) => Some(v.clone()),
            _ => None,
        }
    }

    pub fn blob(&self) -> &[u8] {
        match self {
            Self::Blob(v) => v,
            _ => &[],
        }
    }
}

pub type Rows = Vec<Vec<Cell>>;

/// A connection or a transaction of either backend.
pub trait Exec {
    /// Runs a statement; how many rows it changed.
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64>;
    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Rows>;
    /// Whether this is PostgreSQL, for the few statements its planner needs told how to read.
    fn postgres(&self) -> bool;
}

impl rusqlite::ToSql for Value<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match *self {
            Self::Int(v) => ValueRef::Integer(v),
            Self::Real(v) => ValueRef::Real(v),
            Self::Text(v) => ValueRef::Text(v.as_bytes()),
            Self::Blob(v) => ValueRef::Blob(v),
            Self::Null => ValueRef::Null,
        }))
    }
}

fn sqlite_rows(conn: &rusqlite::Connection, sql: &str, params: &[Value]) -> Result<Rows> {
    use rusqlite::types::ValueRef;
    let mut stmt = conn.prepare_cached(sql)?;
    let width = stmt.column_count();
    let rows = stmt.query_map(rusqlite::params_from_iter(params), |row| {
        (0..width)
            .map(|i| {
                Ok(match row.get_ref(i)? {
                    ValueRef::Integer(v) => Cell::Int(v),
                    ValueRef::Real(v) => Cell::Real(v),
                    ValueRef::Text(v) => Cell::Text(String::from_utf8_lossy(v).into_owned()),
                    ValueRef::Blob(v) => Cell::Blob(v.to_vec()),
                    ValueRef::Null => Cell::Null,
                })
            })
            .collect()
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn sqlite_exec(conn: &rusqlite::Connection, sql: &str, params: &[Value]) -> Result<u64> {
    Ok(conn
        .prepare_cached(sql)?
        .execute(rusqlite::params_from_iter(params))? as u64)
}

impl Exec for rusqlite::Connection {
    fn postgres(&self) -> bool {
        false
    }

    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
        sqlite_exec(self, sql, params)
    }

    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Rows> {
        sqlite_rows(self, sql, params)
    }
}

impl Exec for rusqlite::Transaction<'_> {
    fn postgres(&self) -> bool {
        false
    }

    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
        sqlite_exec(self, sql, params)
    }

    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Rows> {
        sqlite_rows(self, sql, params)
    }
}

impl ToSql for Value<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match *self {
            Self::Int(v) if *ty == Type::INT4 => i32::try_from(v)?.to_sql(ty, out),
            Self::Int(v) => v.to_sql(ty, out),
            Self::Real(v) => v.to_sql(ty, out),
            Self::Text(v) => v.to_sql(ty, out),
            Self::Blob(v) => v.to_sql(ty, out),
            Self::Null => Ok(IsNull::Yes),
        }
    }

    fn accepts(ty: &Type) -> bool {
        [
            Type::INT8,
            Type::INT4,
            Type::FLOAT8,
            Type::TEXT,
            Type::VARCHAR,
            Type::BYTEA,
        ]
        .contains(ty)
    }

    postgres::types::to_sql_checked!();
}

fn pg_params<'a>(params: &'a [Value<'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

fn pg_cell(row: &postgres::Row, i: usize) -> Result<Cell> {
    let ty = row.columns()[i].type_();
    let cell = if *ty == Type::INT8 {
        row.try_get::<_, Option<i64>>(i)?.map(Cell::Int)
    } else if *ty == Type::INT4 {
        row.try_get::<_, Option<i32>>(i)?
            .map(|v| Cell::Int(v.into()))
    } else if *ty == Type::FLOAT8 {
        row.try_get::<_, Option<f64>>(i)?.map(Cell::Real)
    } else if *ty == Type::TEXT || *ty == Type::VARCHAR {
        row.try_get::<_, Option<String>>(i)?.map(Cell::Text)
    } else if *ty == Type::BYTEA {
        row.try_get::<_, Option<Vec<u8>>>(i)?.map(Cell::Blob)
    } else {
        return Err(StoreError::Corrupt("a column of an unexpected type"));
    };
    Ok(cell.unwrap_or(Cell::Null))
}

/// A PostgreSQL connection or transaction with the statements it ran kept prepared: each runs
/// in one round trip after its first (the client alone prepares every call anew).
pub struct Prepared<'a, C> {
    pub client: &'a mut C,
    pub statements: &'a mut std::collections::HashMap<String, postgres::Statement>,
}

impl<C: postgres::GenericClient> Prepared<'_, C> {
    fn statement(&mut self, sql: &str) -> Result<postgres::Statement> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql)?;
        self.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }
}

impl<C: postgres::GenericClient> Exec for Prepared<'_, C> {
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
        let statement = self.statement(sql)?;
        Ok(self.client.execute(&statement, &pg_params(params))?)
    }

    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Rows> {
        let statement = self.statement(sql)?;
        self.client
            .query(&statement, &pg_params(params))?
            .iter()
            .map(|row| (0..row.len()).map(|i| pg_cell(row, i)).collect())
            .collect()
    }

    fn postgres(&self) -> bool {
        true
    }
}
