//! Two independent parts of one large history's check on two cores at
//! once. (A batch of many histories spreads them over the cores itself:
//! this is for the single history of 10⁵–10⁶ operations.)

/// From this many operations a history's independent parts may take a
/// second core.
pub const TWO_CORES_MIN_OPS: usize = 20_000;

/// Whether a check of `n` operations takes a second core: a large history,
/// on a machine that has one.
pub fn two_cores(n: usize) -> bool {
    n >= TWO_CORES_MIN_OPS && std::thread::available_parallelism().is_ok_and(|c| c.get() > 1)
}

/// `(a(), b())`, with `b` on a second thread (16 MB of stack, as the
/// engines' searches may need) while `a` runs on this one; a panic in `b`
/// goes on here.
pub fn join<A, B: Send>(a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> (A, B) {
    std::thread::scope(|scope| {
        let second = std::thread::Builder::new()
            .stack_size(16 << 20)
            .spawn_scoped(scope, b)
            .expect("a thread starts");
        let first = a();
        let second = second
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (first, second)
    })
}
