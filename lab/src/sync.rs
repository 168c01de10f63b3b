//! The one way the lab takes a lock. Poisoning is ignored: a profile, a registry or a truth
//! file is whole after every statement, and one panicking server thread must not stop the
//! rest of the fleet.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// `lock()` without poisoning.
pub(crate) trait Locked<T> {
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T> Locked<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
