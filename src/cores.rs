//! Starting a helper thread on a core its parent is not using.
//!
//! Linux puts a new thread on its parent's core and moves it to an idle one at a later load
//! balance. On this project's 2-core machine that came milliseconds later: a process that
//! started a thread to compile its rules while it parsed ran both one after the other (`perf
//! stat`: 0.92 CPUs used), and a test program whose two threads spin 2 ms each took up to 4.1 ms
//! (2.2 ms once the new thread moved). [`spawn_beside`] lets the new thread move itself away
//! first.

use std::thread::JoinHandle;

/// Spawns `f` on a thread that, if it finds itself on its parent's core, moves to another of
/// the cores the process may use (and may use all of them again from there). The parent yields
/// once, so the new thread gets to move before the parent's work fills the core. Anywhere the
/// core cannot be learned or changed, this is `std::thread::spawn`.
pub(crate) fn spawn_beside<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    beside(|parent| {
        std::thread::spawn(move || {
            leave(parent);
            f()
        })
    })
}

/// The protocol behind [`spawn_beside`], for any way of spawning (a scoped thread too): `spawn`
/// gets the parent's core, and the thread it starts must call [`leave`] with it first.
pub(crate) fn beside<H>(spawn: impl FnOnce(Option<usize>) -> H) -> H {
    let handle = spawn(current_core());
    std::thread::yield_now();
    handle
}

#[cfg(target_os = "linux")]
fn current_core() -> Option<usize> {
    nix::sched::sched_getcpu().ok()
}

#[cfg(not(target_os = "linux"))]
fn current_core() -> Option<usize> {
    None
}

/// Moves the calling thread off its parent's core if it is there and another core is allowed,
/// then allows it every core it had.
#[cfg(target_os = "linux")]
pub(crate) fn leave(parent: Option<usize>) {
    use nix::sched::{sched_getaffinity, sched_setaffinity};
    use nix::unistd::Pid;
    let me = Pid::from_raw(0);
    let Some(core) = parent.filter(|&p| current_core() == Some(p)) else {
        return;
    };
    let Ok(all) = sched_getaffinity(me) else {
        return;
    };
    let mut others = all;
    if others.unset(core).is_ok()
        && others != nix::sched::CpuSet::new()
        && sched_setaffinity(me, &others).is_ok()
    {
        let _ = sched_setaffinity(me, &all);
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn leave(_parent: Option<usize>) {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use nix::sched::sched_getaffinity;
    use nix::unistd::Pid;

    #[test]
    fn the_new_thread_runs_and_returns() {
        assert_eq!(spawn_beside(|| 6 * 7).join().expect("joins"), 42);
    }

    /// Leaving a core must not leave the thread pinned: afterwards it may use every core it
    /// could before, and so may its parent.
    #[test]
    fn leaving_a_core_keeps_every_core_allowed() {
        let me = Pid::from_raw(0);
        let before = sched_getaffinity(me).expect("affinity");
        leave(current_core());
        assert_eq!(sched_getaffinity(me).expect("affinity"), before);
        let child = spawn_beside(move || sched_getaffinity(Pid::from_raw(0)).expect("affinity"));
        assert_eq!(child.join().expect("joins"), before);
        assert_eq!(sched_getaffinity(me).expect("affinity"), before);
    }
}
