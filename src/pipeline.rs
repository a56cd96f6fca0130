//! Sharing per-item work between two cores, in order.
//!
//! Both the log projection and `aciproj patterns` read items on one thread, *prepare* each one
//! (parse its time, redact it) and *fold* it into order-sensitive state (templates, groups). The
//! fold must see items in input order; preparing does not care where it runs. So the reading
//! thread batches items and hands them to a worker that owns the state, through a bounded FIFO
//! channel. While the worker keeps up it gets raw batches and prepares them itself; when the
//! channel is full, the reader prepares the batch before handing it over. The work spreads over
//! both cores, the fold still sees every item in input order, and memory stays bounded. An
//! input smaller than one batch never starts a thread.
//!
//! A batch is gathered by the caller's [`Gather`]: the readers copy each item's text into one
//! buffer per batch rather than into a string per item, so a million items cost a few thousand
//! allocations, not millions, and no thread frees strings another thread allocated (glibc
//! serializes that on the allocating thread's arena lock).

use std::sync::mpsc::TrySendError;

/// Items as read, or already prepared by the reading thread.
pub(crate) enum Batch<R, P> {
    /// Still to be prepared, by the worker.
    Raw(R),
    /// Prepared by the reader.
    Prepared(P),
}

/// A batch of items as the reading thread gathers them; an item may borrow from the reader's
/// buffer, and the batch keeps what it needs of it.
pub(crate) trait Gather: Default + Send {
    /// One item as the reader hands it over.
    type Item<'a>;
    /// Adds one item at the end.
    fn push(&mut self, item: Self::Item<'_>);
    /// How many items the batch holds.
    fn len(&self) -> usize;
    /// About how many bytes of text the batch holds; [`BATCH_BYTES`] ends a batch early.
    fn bytes(&self) -> usize {
        0
    }
}

/// A batch is handed over once it holds this much text, however few items: a few large items
/// (stack traces of megabytes) must not make a batch, and the batches in flight, unbounded.
pub(crate) const BATCH_BYTES: usize = 1024 * 1024;

/// Owned items, one by one.
impl<T: Send> Gather for Vec<T> {
    type Item<'a> = T;
    fn push(&mut self, item: T) {
        Vec::push(self, item);
    }
    fn len(&self) -> usize {
        Vec::len(self)
    }
}

/// Runs `read`, which hands every item it reads to the callback it is given, on this thread, and
/// `consume` (which prepares raw batches and folds) on a worker that owns `state`; a batch is
/// `batch_size` items or [`BATCH_BYTES`] of text, whichever comes first. `prepare_here`
/// is the reader's own preparer of a whole batch, used when the worker is behind. Returns what
/// `read` returned and the state after every item was folded. Unless `parallel`, no thread is
/// started: `consume` runs here, batch by batch, and gives the same state.
pub(crate) fn share<B, P, S, E>(
    parallel: bool,
    batch_size: usize,
    state: S,
    read: impl FnOnce(&mut dyn for<'a> FnMut(B::Item<'a>)) -> E,
    mut prepare_here: impl FnMut(B) -> P,
    consume: impl Fn(&mut S, Batch<B, P>) + Sync,
) -> (E, S)
where
    B: Gather,
    P: Send,
    S: Send,
{
    let consume = &consume;
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Batch<B, P>>(2);
        let mut rx = Some(rx);
        let mut idle = Some(state);
        let mut worker = None;
        let mut batch = B::default();
        let read = read(&mut |item: B::Item<'_>| {
            batch.push(item);
            if batch.len() < batch_size && batch.bytes() < BATCH_BYTES {
                return;
            }
            if let (false, Some(s)) = (parallel, idle.as_mut()) {
                consume(s, Batch::Raw(std::mem::take(&mut batch)));
                return;
            }
            if let (Some(mut s), Some(rx)) = (idle.take(), rx.take()) {
                worker = Some(crate::cores::beside(|parent| {
                    scope.spawn(move || {
                        crate::cores::leave(parent);
                        for b in rx {
                            consume(&mut s, b);
                        }
                        s
                    })
                }));
            }
            let full = std::mem::take(&mut batch);
            // A send fails only when the worker is gone (it panicked): the join reports that.
            match tx.try_send(Batch::Raw(full)) {
                Ok(()) | Err(TrySendError::Disconnected(_)) => {}
                Err(TrySendError::Full(Batch::Raw(items))) => {
                    let _ = tx.send(Batch::Prepared(prepare_here(items)));
                }
                Err(TrySendError::Full(prepared)) => {
                    let _ = tx.send(prepared);
                }
            }
        });
        let state = match (idle, worker) {
            (Some(mut s), _) => {
                consume(&mut s, Batch::Raw(batch));
                s
            }
            (None, Some(handle)) => {
                let _ = tx.send(Batch::Raw(batch));
                drop(tx);
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }
            (None, None) => unreachable!("the state is either idle or owned by the worker"),
        };
        (read, state)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strings in one batch, their bytes counted.
    #[derive(Default)]
    struct Texts(Vec<String>);

    impl Gather for Texts {
        type Item<'a> = &'a str;
        fn push(&mut self, item: &str) {
            self.0.push(item.to_owned());
        }
        fn len(&self) -> usize {
            self.0.len()
        }
        fn bytes(&self) -> usize {
            self.0.iter().map(String::len).sum()
        }
    }

    /// A few large items end a batch before its count does, so the batches in flight hold
    /// about [`BATCH_BYTES`] each, whatever the items' size.
    #[test]
    fn a_batch_ends_at_its_bytes_before_its_count() {
        let item = "x".repeat(BATCH_BYTES / 3 + 1);
        for parallel in [false, true] {
            let (_, sizes) = share::<Texts, _, _, _>(
                parallel,
                1000,
                Vec::new(),
                |sink| (0..10).for_each(|_| sink(&item)),
                |texts: Texts| texts,
                |sizes: &mut Vec<usize>, batch| match batch {
                    Batch::Raw(texts) | Batch::Prepared(texts) => sizes.push(texts.len()),
                },
            );
            assert_eq!(sizes, [3, 3, 3, 1], "parallel: {parallel}");
        }
    }

    #[test]
    fn every_item_is_folded_once_in_order_whoever_prepares_it() {
        for (n, parallel) in [0usize, 1, 7, 8, 9, 1000, 5000]
            .into_iter()
            .flat_map(|n| [(n, true), (n, false)])
        {
            let (count, folded) = share::<Vec<usize>, _, _, _>(
                parallel,
                8,
                Vec::new(),
                |sink| {
                    (0..n).for_each(&mut *sink);
                    n
                },
                |items: Vec<usize>| items.into_iter().map(|i| i * 2).collect::<Vec<_>>(),
                |out: &mut Vec<usize>, batch| match batch {
                    Batch::Raw(items) => out.extend(items.into_iter().map(|i| i * 2)),
                    Batch::Prepared(items) => out.extend(items),
                },
            );
            assert_eq!(count, n);
            assert_eq!(folded, (0..n).map(|i| i * 2).collect::<Vec<_>>());
        }
    }
}
