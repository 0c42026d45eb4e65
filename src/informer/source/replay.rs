//! Replay: [`ListerWatcher`]s that answer from a record file instead of a server.
//!
//! Each resource's entries become a queue of exchanges — a LIST and its answer, a WATCH and
//! its frames — consumed in order by the replaying reflector's calls: a LIST call takes the
//! next exchange, which must be a LIST (options that differ from the recorded ones are noted
//! and the recorded answer is given anyway), likewise a WATCH. Answers and frames are handed
//! out at their recorded offsets scaled by the [`Speed`] (or at once with `max`; never before
//! the call). A call of the wrong kind (the recording has a WATCH where the replay asks for a
//! LIST: a different `--watch-list` or `--client-go`) ends the replay. Once every entry was
//! handed out and the recording's stop time (its quiet tail) has passed, the replay is
//! [`ReplayEnd::Finished`]; a call past the end waits forever.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::watch;
use tokio::time::Instant;

use super::record_file::{Entry, EntryKind, RecordError, RecordFile};
use super::{
    ListOptions, ListPage, ListerWatcher, SourceError, SourceFuture, WatchFrame, WatchOptions,
    WatchStream,
};

/// How fast recorded time passes in a replay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    /// Recorded offsets divided by this factor (1 = as recorded).
    Factor(f64),
    /// No waiting at all.
    Max,
}

/// How a replay ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayEnd {
    /// Every entry was handed out (or, after [`STALL`], the rest was never asked for).
    Finished,
    /// The replay asked for a request the recording does not have there.
    Mismatch(RecordError),
}

/// How long a replay past its last recorded offset may go without asking for anything before
/// it counts as finished with entries left over.
pub const STALL: Duration = Duration::from_secs(5);

/// A recorded watch's items after it opened.
#[derive(Debug)]
enum StreamItem {
    Frame(WatchFrame),
    Error(SourceError),
    End,
}

/// A timed entry of an exchange: its offset and what it holds.
#[derive(Debug)]
struct Timed<T> {
    t: u64,
    value: T,
}

/// One request and what answered it.
#[derive(Debug)]
enum Exchange {
    List {
        line: usize,
        opts: ListOptions,
        answer: Option<Timed<Result<ListPage, SourceError>>>,
    },
    Watch {
        line: usize,
        opts: WatchOptions,
        open_error: Option<Timed<SourceError>>,
        items: Vec<Timed<StreamItem>>,
    },
}

/// A record file being replayed.
pub struct Replay {
    shared: Arc<Shared>,
    exchanges: Vec<Recorded>,
}

/// One resource's recorded exchanges, and when its first request was made.
struct Recorded {
    resource: String,
    queue: VecDeque<Exchange>,
    first_t: u64,
}

/// One recorded resource, ready to be replayed.
pub struct Replayed {
    pub resource: String,
    pub source: Arc<dyn ListerWatcher>,
    /// When its first request is due: a stream that began after the recording started
    /// (a proxy's client that came later) begins then, so that its first LIST takes the
    /// time it took on the wire, not the time since the recording began.
    pub starts_at: Instant,
}

struct Shared {
    start: Instant,
    speed: Speed,
    /// Entries not handed out yet.
    remaining: AtomicUsize,
    /// When the recording stopped: its `stopped` line, else its last entry's offset.
    last_t: u64,
    ended: watch::Sender<Option<ReplayEnd>>,
    /// Calls whose options differ from the recording's: `line: what differs`.
    notes: Mutex<Vec<RecordError>>,
}

impl Replay {
    /// Groups `file`'s entries into exchanges per resource; recorded time starts now.
    pub fn new(file: RecordFile, speed: Speed) -> Result<Self, RecordError> {
        let last_entry = file.entries.iter().map(|e| e.t).max().unwrap_or(0);
        let last_t = last_entry.max(file.stopped.unwrap_or(0));
        let remaining = file.entries.len();
        let mut exchanges: Vec<Recorded> = file
            .header
            .resources
            .iter()
            .map(|r| Recorded {
                resource: r.clone(),
                queue: VecDeque::new(),
                first_t: u64::MAX,
            })
            .collect();
        for entry in file.entries {
            let Some(recorded) = exchanges.iter_mut().find(|r| r.resource == entry.resource) else {
                continue;
            };
            recorded.first_t = recorded.first_t.min(entry.t);
            add_entry(&mut recorded.queue, entry)?;
        }
        let (ended, _) = watch::channel(None);
        let shared = Arc::new(Shared {
            start: Instant::now(),
            speed,
            remaining: AtomicUsize::new(remaining),
            last_t,
            ended,
            notes: Mutex::default(),
        });
        shared.consumed(0);
        Ok(Self { shared, exchanges })
    }

    /// Every resource's source, in the header's order.
    pub fn sources(&mut self) -> Vec<Replayed> {
        std::mem::take(&mut self.exchanges)
            .into_iter()
            .map(|recorded| Replayed {
                resource: recorded.resource,
                starts_at: self.shared.due(recorded.first_t.min(self.shared.last_t)),
                source: Arc::new(ReplaySource {
                    queue: Mutex::new(recorded.queue),
                    shared: self.shared.clone(),
                }),
            })
            .collect()
    }

    /// Resolves once the replay ended: every entry handed out and the recording's stop time
    /// reached, a mismatch, or nothing asked for during [`STALL`] after the last recorded
    /// offset.
    pub async fn ended(&self) -> ReplayEnd {
        let end = self.handed_out().await;
        if end == ReplayEnd::Finished {
            self.shared.wait_for(self.shared.last_t).await;
        }
        end
    }

    /// Resolves once every entry was handed out, a mismatch, or a stall.
    async fn handed_out(&self) -> ReplayEnd {
        let mut ended = self.shared.ended.subscribe();
        let mut seen = usize::MAX;
        loop {
            tokio::select! {
                end = ended.wait_for(Option::is_some) => {
                    if let Ok(end) = end && let Some(end) = end.clone() {
                        return end;
                    }
                }
                () = tokio::time::sleep(STALL) => {
                    let left = self.shared.remaining.load(Ordering::Acquire);
                    let past_end = Instant::now() >= self.shared.due(self.shared.last_t);
                    if past_end && left == seen {
                        return ReplayEnd::Finished;
                    }
                    seen = left;
                }
            }
        }
    }

    /// How long the recording runs, its quiet tail included (recorded time, before `--speed`).
    pub fn recorded_length(&self) -> Duration {
        Duration::from_millis(self.shared.last_t)
    }

    /// Entries never handed out (a replay that asked for less than was recorded).
    pub fn left_over(&self) -> usize {
        self.shared.remaining.load(Ordering::Acquire)
    }

    /// The calls whose options differed from the recorded ones (answered from the recording).
    pub fn notes(&self) -> Vec<RecordError> {
        lock(&self.shared.notes).clone()
    }
}

/// Adds `entry` to its resource's exchanges: a request opens one, an answer completes the
/// last one; an answer with no request before it is an error naming its line.
fn add_entry(queue: &mut VecDeque<Exchange>, entry: Entry) -> Result<(), RecordError> {
    let Entry { line, t, kind, .. } = entry;
    let orphan = |what: &str, request: &str| RecordError {
        line,
        message: format!("{what} with no {request} before it"),
    };
    fn timed<T>(t: u64, value: T) -> Timed<T> {
        Timed { t, value }
    }
    match (kind, queue.back_mut()) {
        (EntryKind::List(opts), _) => queue.push_back(Exchange::List {
            line,
            opts,
            answer: None,
        }),
        (EntryKind::Watch(opts), _) => queue.push_back(Exchange::Watch {
            line,
            opts,
            open_error: None,
            items: Vec::new(),
        }),
        (
            EntryKind::Page(page),
            Some(Exchange::List {
                answer: a @ None, ..
            }),
        ) => {
            *a = Some(timed(t, Ok(page)));
        }
        (EntryKind::Page(_), _) => return Err(orphan("a page", "LIST request")),
        (
            EntryKind::Error(e),
            Some(Exchange::List {
                answer: a @ None, ..
            }),
        ) => {
            *a = Some(timed(t, Err(e)));
        }
        (
            EntryKind::Error(e),
            Some(Exchange::Watch {
                open_error: o @ None,
                items,
                ..
            }),
        ) if items.is_empty() => *o = Some(timed(t, e)),
        (EntryKind::Error(_), _) => return Err(orphan("an error", "pending request")),
        (
            kind,
            Some(Exchange::Watch {
                open_error: None,
                items,
                ..
            }),
        ) if !matches!(
            items.last(),
            Some(Timed {
                value: StreamItem::End | StreamItem::Error(_),
                ..
            })
        ) =>
        {
            items.push(timed(
                t,
                match kind {
                    EntryKind::Frame(f) => StreamItem::Frame(f),
                    EntryKind::StreamError(e) => StreamItem::Error(e),
                    _ => StreamItem::End,
                },
            ));
        }
        (_, _) => return Err(orphan("a watch frame or end", "open WATCH")),
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    /// When the entry at offset `t` is due.
    fn due(&self, t: u64) -> Instant {
        match self.speed {
            Speed::Max => self.start,
            Speed::Factor(f) => {
                self.start + Duration::from_secs_f64(t as f64 / 1000.0 / f.max(f64::MIN_POSITIVE))
            }
        }
    }

    async fn wait_for(&self, t: u64) {
        if self.speed != Speed::Max {
            tokio::time::sleep_until(self.due(t)).await;
        }
    }

    /// `n` more entries were handed out; the replay is finished when none is left.
    fn consumed(&self, n: usize) {
        let before = self.remaining.fetch_sub(n, Ordering::AcqRel);
        if before == n {
            self.end(ReplayEnd::Finished);
        }
    }

    fn end(&self, end: ReplayEnd) {
        self.ended.send_if_modified(|e| {
            let first = e.is_none();
            if first {
                *e = Some(end);
            }
            first
        });
    }

    fn note(&self, line: usize, message: String) {
        lock(&self.notes).push(RecordError { line, message });
    }
}

/// One resource's recorded exchanges, answering the replaying reflector.
struct ReplaySource {
    queue: Mutex<VecDeque<Exchange>>,
    shared: Arc<Shared>,
}

impl ReplaySource {
    /// The next exchange; past the end of the recording, waits forever (the replay ends).
    async fn next(&self) -> Exchange {
        let next = lock(&self.queue).pop_front();
        match next {
            Some(exchange) => exchange,
            None => std::future::pending().await,
        }
    }

    /// Ends the replay: the recording has `recorded` at `line` where the replay asks `asked`.
    async fn mismatch<T>(&self, line: usize, recorded: &str, asked: &str) -> T {
        self.shared.end(ReplayEnd::Mismatch(RecordError {
            line,
            message: format!(
                "the recording has a {recorded} here where this replay asks for a {asked}; replay with the --client-go, --watch-list and --page-size it was recorded with"
            ),
        }));
        std::future::pending().await
    }
}

impl ListerWatcher for ReplaySource {
    fn list<'a>(&'a self, opts: &'a ListOptions) -> SourceFuture<'a, ListPage> {
        Box::pin(async move {
            let (line, recorded, answer) = match self.next().await {
                Exchange::List { line, opts, answer } => (line, opts, answer),
                Exchange::Watch { line, .. } => return self.mismatch(line, "WATCH", "LIST").await,
            };
            self.shared.consumed(1);
            if recorded != *opts {
                let message = format!(
                    "LIST asked with {}, recorded with {}; answered as recorded",
                    describe_list(opts),
                    describe_list(&recorded)
                );
                self.shared.note(line, message);
            }
            let Some(answer) = answer else {
                return std::future::pending().await;
            };
            self.shared.wait_for(answer.t).await;
            self.shared.consumed(1);
            answer.value
        })
    }

    fn watch<'a>(&'a self, opts: &'a WatchOptions) -> SourceFuture<'a, WatchStream> {
        Box::pin(async move {
            let (line, recorded, open_error, items) = match self.next().await {
                Exchange::Watch {
                    line,
                    opts,
                    open_error,
                    items,
                } => (line, opts, open_error, items),
                Exchange::List { line, .. } => return self.mismatch(line, "LIST", "WATCH").await,
            };
            self.shared.consumed(1);
            if (&recorded.resource_version, recorded.send_initial_events)
                != (&opts.resource_version, opts.send_initial_events)
            {
                let message = format!(
                    "WATCH asked from resourceVersion {:?} (initial events: {}), recorded from {:?} (initial events: {}); answered as recorded",
                    opts.resource_version,
                    opts.send_initial_events,
                    recorded.resource_version,
                    recorded.send_initial_events
                );
                self.shared.note(line, message);
            }
            if let Some(error) = open_error {
                self.shared.wait_for(error.t).await;
                self.shared.consumed(1);
                return Err(error.value);
            }
            Ok(replayed(items, self.shared.clone()))
        })
    }
}

/// A recorded watch's items at their offsets; a watch the recording did not see end stays
/// open (silent) forever.
fn replayed(items: Vec<Timed<StreamItem>>, shared: Arc<Shared>) -> WatchStream {
    let open_ended = !matches!(
        items.last(),
        Some(Timed {
            value: StreamItem::End | StreamItem::Error(_),
            ..
        })
    );
    let stream = futures_util::stream::iter(items)
        .then(move |item| {
            let shared = shared.clone();
            async move {
                shared.wait_for(item.t).await;
                shared.consumed(1);
                item.value
            }
        })
        .filter_map(|item| {
            std::future::ready(match item {
                StreamItem::Frame(frame) => Some(Ok(frame)),
                StreamItem::Error(e) => Some(Err(e)),
                StreamItem::End => None,
            })
        });
    if open_ended {
        stream.chain(futures_util::stream::pending()).boxed()
    } else {
        stream.boxed()
    }
}

fn describe_list(o: &ListOptions) -> String {
    let limit = o
        .limit
        .map_or_else(|| "no limit".to_owned(), |l| format!("limit={l}"));
    let cont = if o.continue_token.is_some() {
        " and a continue token"
    } else {
        ""
    };
    format!("resourceVersion {:?}, {limit}{cont}", o.resource_version)
}
