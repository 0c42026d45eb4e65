//! The binary's memory policy. glibc's allocator keeps freed memory mapped for reuse, per
//! thread arena; after the initial LIST (page bodies, frames, queued deltas, all transient) that
//! is megabytes the process no longer needs. Once the informer has synced we hand the free heap
//! back to the kernel, so the RSS a user sees is the cache, not the LIST's high-water mark.
//! The process also keeps one arena instead of one per thread: the pipeline's objects are
//! allocated on one worker thread and freed on another, and a second arena's free space and
//! fragmentation cost ~0.6 MB of RSS at 10k pods for no measured speed (benches/HISTORY.md);
//! one arena per thread did not relieve the arena lock the two threads wait on either
//! (benches/HISTORY.md, "Found, tried, not kept").

/// Limits glibc's allocator to one arena; call first thing in `main`, before any thread
/// starts. A no-op on other C libraries.
#[allow(unsafe_code)] // the crate's one exception to `unsafe_code = "deny"`
pub fn use_one_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt has no preconditions; M_ARENA_MAX only bounds future arena creation.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// Returns free heap memory of every arena to the kernel (glibc's `malloc_trim`); a no-op on
/// other C libraries.
#[allow(unsafe_code)] // the crate's one exception to `unsafe_code = "deny"`
pub fn release_free_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim has no preconditions; it only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}
