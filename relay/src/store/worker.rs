//! Store connections on their own threads: async code hands them jobs and awaits the answer,
//! so no query runs on the runtime's threads, and PostgreSQL's blocking client (which holds a
//! runtime of its own) is made, used and dropped only on these threads.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use super::{Result, Store, StoreError};
use crate::sync::Locked;

type Job = Box<dyn FnOnce(&mut dyn Store) + Send>;

/// A few connections serving one queue of jobs; cheap to clone.
#[derive(Clone)]
pub struct Workers {
    jobs: mpsc::Sender<Job>,
    backend: &'static str,
}

impl Workers {
    /// One thread per connection; they stop when the last handle is dropped.
    pub fn start(stores: Vec<Box<dyn Store>>, name: &str) -> Self {
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        let backend = stores.first().map_or("none", |s| s.backend());
        for (i, mut store) in stores.into_iter().enumerate() {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("{name}-{i}"))
                .spawn(move || loop {
                    let job = {
                        let queue = queue.locked();
                        queue.recv()
                    };
                    match job {
                        Ok(job) => job(store.as_mut()),
                        Err(_) => return,
                    }
                });
            if let Err(e) = spawned {
                tracing::error!("cannot start a store thread: {e}");
            }
        }
        Self { jobs, backend }
    }

    pub fn backend(&self) -> &'static str {
        self.backend
    }

    /// Runs `job` on the next free connection.
    pub async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut dyn Store) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Box::new(move |store| {
                let _ = tx.send(job(store));
            }))
            .map_err(|_| StoreError::Stopped)?;
        rx.await.map_err(|_| StoreError::Stopped)?
    }

    /// The same, from a thread that may block (command-line tools).
    pub fn run_blocking<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut dyn Store) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (tx, rx) = mpsc::channel();
        self.jobs
            .send(Box::new(move |store| {
                let _ = tx.send(job(store));
            }))
            .map_err(|_| StoreError::Stopped)?;
        rx.recv().map_err(|_| StoreError::Stopped)?
    }
}
