//! `proxy --record FILE`: the traffic of every client-side informer stream in the record-file
//! format (`informer::source::record_file`), one `r` per stream. The streams are only known
//! once they happened, and the header names them, so entries go to `FILE.part` as they come
//! and [`RecordWriter::finish`] writes the header and then the entries into FILE (zstd when it
//! ends in `.zst`), closed by the `stopped` line: when the proxy stopped (Ctrl-C, SIGTERM,
//! `--timeout`), so a replay runs to then. Both files are created mode 0600, and Secret
//! values are written redacted, as `kinformer record` writes them.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use tokio::time::Instant;

use crate::informer::source::record_file::{
    EntryKind, Header, ProtobufWire, write_entry_with_wire, write_stopped,
};

/// zstd's default level, as `kinformer record` uses.
const ZSTD_LEVEL: i32 = 3;

/// Entries being written; see the module documentation.
pub struct RecordWriter {
    path: PathBuf,
    part: PathBuf,
    out: BufWriter<File>,
    start: Instant,
    /// When the recording started: the header's `created`, the instant entry offsets count from.
    created: jiff::Timestamp,
    line: Vec<u8>,
    entries: u64,
    /// When the proxy stopped (ms after the start): nothing is appended after it.
    stopped: Option<u64>,
}

/// What a finished recording holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    pub entries: u64,
}

impl RecordWriter {
    /// Creates `path.part`; offsets count from now.
    pub fn create(path: &Path) -> io::Result<Self> {
        let mut part = path.as_os_str().to_owned();
        part.push(".part");
        let part = PathBuf::from(part);
        let out = BufWriter::with_capacity(256 * 1024, crate::private_file::create(&part)?);
        Ok(Self {
            path: path.to_owned(),
            part,
            out,
            start: Instant::now(),
            created: jiff::Timestamp::now(),
            line: Vec::new(),
            entries: 0,
            stopped: None,
        })
    }

    /// When the recording started (the header's `created`: replayed times are live times).
    pub fn created(&self) -> jiff::Timestamp {
        self.created
    }

    /// Appends one entry of `stream`; `secrets`: its objects are Secrets, written with their
    /// values redacted (as every record file writes them); `wire`: it came in protobuf.
    /// After [`RecordWriter::stop`], nothing is appended.
    pub fn append(
        &mut self,
        stream: &str,
        kind: &EntryKind,
        secrets: bool,
        wire: Option<&ProtobufWire>,
    ) -> io::Result<()> {
        if self.stopped.is_some() {
            return Ok(());
        }
        let t = self.offset();
        self.line.clear();
        write_entry_with_wire(&mut self.line, t, stream, kind, secrets, wire);
        self.entries += 1;
        self.out.write_all(&self.line)
    }

    /// Milliseconds since the recording started.
    fn offset(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// The recording stops now: what the proxy sees while it closes its connections (the
    /// watches it ends itself) is not the clients' traffic. The first call counts.
    pub fn stop(&mut self) {
        if self.stopped.is_none() {
            self.stopped = Some(self.offset());
        }
    }

    /// Writes FILE: `header`, then every entry, then the `stopped` line (now, unless
    /// [`RecordWriter::stop`] said earlier); removes the `.part` file.
    pub fn finish(mut self, header: &Header) -> io::Result<Recorded> {
        self.stop();
        self.line.clear();
        write_stopped(&mut self.line, self.stopped.unwrap_or_default());
        self.out.write_all(&self.line)?;
        self.out.flush()?;
        drop(self.out);
        let file = BufWriter::with_capacity(256 * 1024, crate::private_file::create(&self.path)?);
        let mut first = serde_json::to_vec(header).map_err(io::Error::other)?;
        first.push(b'\n');
        let mut entries = BufReader::new(File::open(&self.part)?);
        if self.path.extension().is_some_and(|e| e == "zst") {
            let mut zstd = zstd::stream::write::Encoder::new(file, ZSTD_LEVEL)?;
            zstd.write_all(&first)?;
            io::copy(&mut entries, &mut zstd)?;
            zstd.finish()?.flush()?;
        } else {
            let mut file = file;
            file.write_all(&first)?;
            io::copy(&mut entries, &mut file)?;
            file.flush()?;
        }
        std::fs::remove_file(&self.part)?;
        Ok(Recorded {
            entries: self.entries,
        })
    }
}
