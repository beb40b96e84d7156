//! A global allocator that counts allocations, for the no-allocation tests. Include it with
//! `mod alloc_counter;` (or `#[path]` from another crate's tests); it registers itself as the
//! test binary's global allocator. Counts are per thread, so the test harness's own threads
//! (which may allocate while a test runs) do not show up in a test's count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // const-initialized and without a destructor: no lazy registration, so no allocation
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

fn bump(bytes: usize) {
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
    let _ = BYTES.try_with(|c| c.set(c.get() + bytes));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        bump(l.size());
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        bump(n);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Allocations (and reallocations) so far on the calling thread.
pub fn allocations() -> usize {
    ALLOCS.with(|c| c.get())
}

/// Bytes requested by those allocations (a reallocation counts its new size).
#[allow(dead_code)]
pub fn bytes_allocated() -> usize {
    BYTES.with(|c| c.get())
}
