//! Async clients (the node's, PostgreSQL's) driven from the service's synchronous core, which
//! runs on blocking threads: each client keeps a runtime of its own whose threads drive its
//! I/O and timers, and the calling thread polls the future to completion ([`drive`]).

use std::{
    future::Future,
    pin::pin,
    sync::Arc,
    task::{Context, Poll, Wake, Waker},
};

/// A runtime of `threads` worker threads named `name`, for a client's I/O.
pub(crate) fn runtime(name: &str, threads: usize) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .thread_name(name)
        .enable_all()
        .build()
}

/// Runs `f` to completion on this thread with `runtime` driving its I/O and timers. Works on
/// any thread, inside another runtime included (an async handler that records a refusal).
pub(crate) fn block_on<F: Future>(runtime: &tokio::runtime::Runtime, f: F) -> F::Output {
    let _in = runtime.enter();
    drive(f)
}

/// Polls `f` to completion on the calling thread, parking between wake-ups. The I/O and timers
/// it awaits are driven by the runtime entered by the caller, on that runtime's own threads,
/// so this works on any thread, inside another runtime included.
pub(crate) fn drive<F: Future>(f: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(out) = f.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}
