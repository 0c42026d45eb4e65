//! Recording: a [`ListerWatcher`] wrapper that appends every LIST request and page, every
//! WATCH request, frame, failure and end of the source it wraps to a record file
//! (`record_file.rs`), each entry stamped with its offset from the start of the recording.
//! One writer task owns the file; the wrapped sources only hand it finished lines, so
//! recording never reorders or blocks the pipeline. The file is created readable by its owner
//! only (mode 0600), and Secret values are written redacted unless
//! [`Recorder::with_secret_data`] keeps them: a recording of a production cluster leaves no
//! secret on disk by default.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::record_file::{EntryKind, Header, SecretData, write_entry_with, write_stopped};
use super::{ListOptions, ListPage, ListerWatcher, SourceFuture, WatchOptions, WatchStream};

/// The zstd level of a `.zst` recording (zstd's default: fast, about 10× smaller than JSON).
const ZSTD_LEVEL: i32 = 3;

/// What a recording wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecordStats {
    /// Entries after the header.
    pub entries: u64,
    /// Bytes written before compression.
    pub bytes: u64,
}

enum Message {
    Line(Vec<u8>),
    /// The last line; the file is closed after it.
    Stopped(Vec<u8>),
}

/// Where the lines go: plain JSONL, or zstd-compressed.
enum Sink {
    Plain(BufWriter<File>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<File>>),
}

impl Sink {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::Plain(w) => w,
            Sink::Zstd(w) => w,
        }
    }

    fn finish(self) -> io::Result<()> {
        match self {
            Sink::Plain(mut w) => w.flush(),
            Sink::Zstd(w) => w.finish()?.flush(),
        }
    }
}

/// One record file being written; [`Recorder::wrap`] each resource's source.
pub struct Recorder {
    log: Log,
    task: JoinHandle<io::Result<RecordStats>>,
}

/// A handle for appending entries, shared by the wrapped sources.
#[derive(Clone)]
struct Log {
    tx: mpsc::UnboundedSender<Message>,
    start: Instant,
    secrets: SecretData,
}

impl Log {
    /// Milliseconds since the recording started.
    fn offset(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn append(&self, resource: &str, kind: &EntryKind) {
        let t = self.offset();
        let mut line = Vec::new();
        write_entry_with(&mut line, t, resource, kind, self.secrets);
        // After `finish` the file is closed: late entries (a stopping watch) are dropped.
        let _ = self.tx.send(Message::Line(line));
    }
}

impl Recorder {
    /// Creates `path` (mode 0600; zstd-compressed when it ends in `.zst`), writes `header` and
    /// starts the writer task; offsets count from now. Secret values are redacted.
    pub fn create(path: &Path, header: &Header) -> io::Result<Self> {
        let file = BufWriter::with_capacity(256 * 1024, crate::private_file::create(path)?);
        let mut sink = if path.extension().is_some_and(|e| e == "zst") {
            Sink::Zstd(zstd::stream::write::Encoder::new(file, ZSTD_LEVEL)?)
        } else {
            Sink::Plain(file)
        };
        let mut first = serde_json::to_vec(header).map_err(io::Error::other)?;
        first.push(b'\n');
        sink.writer().write_all(&first)?;
        let (tx, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(write_lines(sink, rx, first.len() as u64));
        Ok(Self {
            log: Log {
                tx,
                start: Instant::now(),
                secrets: SecretData::Redact,
            },
            task,
        })
    }

    /// What to write of Secret values (before [`Self::wrap`]: the sources wrapped after it).
    pub fn with_secret_data(mut self, secrets: SecretData) -> Self {
        self.log.secrets = secrets;
        self
    }

    /// `inner`, recording its traffic as `resource`'s.
    pub fn wrap(&self, resource: &str, inner: Arc<dyn ListerWatcher>) -> Arc<dyn ListerWatcher> {
        Arc::new(RecordingSource {
            inner,
            resource: resource.into(),
            log: self.log.clone(),
        })
    }

    /// Writes what was appended so far and the `stopped` line (now), closes the file and says
    /// what it holds.
    pub async fn finish(self) -> io::Result<RecordStats> {
        let mut stopped = Vec::new();
        write_stopped(&mut stopped, self.log.offset());
        let _ = self.log.tx.send(Message::Stopped(stopped));
        self.task.await.map_err(io::Error::other)?
    }
}

/// The writer task: lines in arrival order until the `stopped` line.
async fn write_lines(
    mut sink: Sink,
    mut rx: mpsc::UnboundedReceiver<Message>,
    header_bytes: u64,
) -> io::Result<RecordStats> {
    let mut stats = RecordStats {
        entries: 0,
        bytes: header_bytes,
    };
    while let Some(message) = rx.recv().await {
        let (Message::Line(line) | Message::Stopped(line)) = &message;
        sink.writer().write_all(line)?;
        stats.bytes += line.len() as u64;
        if matches!(message, Message::Stopped(_)) {
            break;
        }
        stats.entries += 1;
    }
    sink.finish()?;
    Ok(stats)
}

/// A source whose every request and answer is appended to the record file.
struct RecordingSource {
    inner: Arc<dyn ListerWatcher>,
    resource: Arc<str>,
    log: Log,
}

impl ListerWatcher for RecordingSource {
    fn list<'a>(&'a self, opts: &'a ListOptions) -> SourceFuture<'a, ListPage> {
        Box::pin(async move {
            self.log
                .append(&self.resource, &EntryKind::List(opts.clone()));
            let answer = self.inner.list(opts).await;
            let entry = match &answer {
                Ok(page) => EntryKind::Page(page.clone()),
                Err(e) => EntryKind::Error(e.clone()),
            };
            self.log.append(&self.resource, &entry);
            answer
        })
    }

    fn watch<'a>(&'a self, opts: &'a WatchOptions) -> SourceFuture<'a, WatchStream> {
        Box::pin(async move {
            self.log
                .append(&self.resource, &EntryKind::Watch(opts.clone()));
            match self.inner.watch(opts).await {
                Ok(stream) => Ok(recorded(stream, self.log.clone(), self.resource.clone())),
                Err(e) => {
                    self.log
                        .append(&self.resource, &EntryKind::Error(e.clone()));
                    Err(e)
                }
            }
        })
    }
}

/// `stream`, appending each frame, a failure, and its clean end.
fn recorded(stream: WatchStream, log: Log, resource: Arc<str>) -> WatchStream {
    futures_util::stream::unfold(stream, move |mut stream| {
        let (log, resource) = (log.clone(), resource.clone());
        async move {
            let item = stream.next().await;
            let entry = match &item {
                Some(Ok(frame)) => EntryKind::Frame(frame.clone()),
                Some(Err(e)) => EntryKind::StreamError(e.clone()),
                None => EntryKind::End,
            };
            log.append(&resource, &entry);
            item.map(|item| (item, stream))
        }
    })
    .boxed()
}
