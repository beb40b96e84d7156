//! The one thread mechanism of the batch API and the optimizers: a [`Threads`] pool runs
//! independent work items (simulations, rollouts, candidate plans, knots' Jacobians,
//! finite-difference columns) with one scratch slot per thread. Every item is computed from
//! its own inputs and written to its own output, so which thread runs an item, and how many
//! threads there are, changes no number: results are bit-identical to a serial loop.

use rayon::prelude::*;
use rayon::ThreadPool;
use std::sync::{Mutex, MutexGuard};

/// The number of threads `nthread = 0` stands for: every CPU.
pub fn all_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `nthread` worker threads (a rayon pool), or the calling thread alone for one.
pub struct Threads {
    pool: Option<ThreadPool>,
    nthread: usize,
}

impl std::fmt::Debug for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Threads({})", self.nthread)
    }
}

impl Default for Threads {
    /// The calling thread alone.
    fn default() -> Self {
        Threads::serial()
    }
}

/// Locks a slot; a panic in a work item poisons it, and a slot holds scratch that every item
/// reloads before use, so the poison is ignored.
fn lock<S>(slot: &Mutex<S>) -> MutexGuard<'_, S> {
    slot.lock().unwrap_or_else(|e| e.into_inner())
}

impl Threads {
    /// A pool of `nthread` threads (0: every CPU); one runs everything on the calling thread.
    pub fn new(nthread: usize) -> Result<Self, String> {
        let nthread = if nthread == 0 { all_threads() } else { nthread };
        if nthread == 1 {
            return Ok(Threads::serial());
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(nthread)
            .thread_name(|i| format!("moreau-{i}"))
            .build()
            .map_err(|e| format!("cannot start {nthread} threads: {e}"))?;
        Ok(Threads {
            pool: Some(pool),
            nthread,
        })
    }

    /// The calling thread alone.
    pub fn serial() -> Self {
        Threads {
            pool: None,
            nthread: 1,
        }
    }

    pub fn nthread(&self) -> usize {
        self.nthread
    }

    /// `f(item)` for every item; the results in the items' order.
    pub fn map<T: Send, R: Send>(&self, items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
        match &self.pool {
            None => items.into_iter().map(f).collect(),
            Some(pool) => pool.install(|| items.into_par_iter().map(&f).collect()),
        }
    }

    /// `f(item)` for every item.
    pub fn for_each<T: Send>(&self, items: Vec<T>, f: impl Fn(T) + Sync) {
        match &self.pool {
            None => items.into_iter().for_each(f),
            Some(pool) => pool.install(|| items.into_par_iter().for_each(&f)),
        }
    }

    /// `f(slot, item)` for every item, each thread with its own slot of `slots` (chosen by the
    /// thread's index in the pool, so `nthread` slots never contend), or serially on
    /// `slots[0]`; items are taken at least `chunk` at a time. Does nothing without slots.
    pub fn for_each_slot<S: Send, T: Send>(
        &self,
        slots: &[Mutex<S>],
        items: Vec<T>,
        chunk: usize,
        f: impl Fn(&mut S, T) + Sync,
    ) {
        if slots.is_empty() {
            return;
        }
        match &self.pool {
            None => {
                let mut s = lock(&slots[0]);
                for it in items {
                    f(&mut s, it);
                }
            }
            Some(pool) => pool.install(|| {
                items
                    .into_par_iter()
                    .with_min_len(chunk.max(1))
                    .for_each(|it| {
                        let i = rayon::current_thread_index().unwrap_or(0) % slots.len();
                        f(&mut lock(&slots[i]), it)
                    })
            }),
        }
    }

    /// One slot per thread, made by `make`.
    pub fn slots<S>(&self, make: impl FnMut() -> S) -> Vec<Mutex<S>> {
        let mut make = make;
        (0..self.nthread).map(|_| Mutex::new(make())).collect()
    }
}
