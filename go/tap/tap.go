package tap

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options says where the tap writes and when it diagnoses.
type Options struct {
	// File is a JSONL file, created (truncated) mode 0600. Lines past MaxBytes are dropped and
	// counted.
	File string
	// MaxBytes bounds File (default 256 MiB).
	MaxBytes int64
	// Listen is a loopback address (127.0.0.1:0 picks a port, see Tap.Addr) whose
	// GET /trace streams the JSONL as chunked HTTP: the lines held so far (up to History),
	// then each line as it happens.
	Listen string
	// History is how many recent lines a new HTTP reader gets first (default 100000).
	History int
	// Buffer is how many lines wait between the controller and the writer (default 65536);
	// a line that finds it full is dropped and counted, never waited for.
	Buffer int
	// NotSyncedAfter is when an informer that has not synced is diagnosed (default 10s).
	NotSyncedAfter time.Duration
	// BacklogWindow is the period over which a handler's backlog is measured (default 2s);
	// a backlog that grew over three windows in a row is diagnosed.
	BacklogWindow time.Duration
	// Record is a kinformer record file (docs/record-replay.md) of the traffic Config sees,
	// objects as metadata only, written when the tap closes (FILE.part until then), for
	// `kinformer replay` beside what the process did.
	Record string
	// Lean leaves out the lines written per object — watch events, notify and handled — for
	// the least overhead: the lifecycle lines (lists, watches, errors, relists, synced), the
	// diagnoses and the summary stay, and every count behind them is kept. KINFORMER_TAP's
	// `lean` part sets it.
	Lean bool
}

// Tap is a running tap: its buffer, its writer and what it has counted.
type Tap struct {
	opts Options
	// queued lines wait here for the writer, which takes them all at once when woken
	queueMu sync.Mutex
	queue   []*line
	wake    chan struct{}
	dropped atomic.Int64
	closed  atomic.Bool
	done    chan struct{}
	pool    sync.Pool

	file     *os.File
	out      *bufio.Writer
	written  int64
	overflow int64 // lines past MaxBytes

	listener net.Listener
	hub      *hub
	rec      *recorder

	start    time.Time
	clientGo string

	mu        sync.Mutex
	informers []*informer
	resources map[string]*resourceState
	closing   bool
	seq       int64 // the writer's only
}

var (
	current  atomic.Pointer[Tap]
	fromEnv  sync.Once
	startMu  sync.Mutex
	envError error
)

// Start starts the tap the package's Config and Informer use. It fails when the file cannot
// be created, the address is not a loopback one or cannot be listened on, or a tap is running.
func Start(o Options) (*Tap, error) {
	startMu.Lock()
	defer startMu.Unlock()
	if current.Load() != nil {
		return nil, errors.New("tap: already started")
	}
	t, err := start(o)
	if err != nil {
		return nil, err
	}
	current.Store(t)
	return t, nil
}

// Active is the running tap: the one Start started, or one KINFORMER_TAP describes
// (`file:PATH` or `listen:ADDR`), started on first use; nil when the tap is off.
func Active() *Tap {
	if t := current.Load(); t != nil {
		return t
	}
	fromEnv.Do(func() {
		spec := os.Getenv("KINFORMER_TAP")
		if spec == "" {
			return
		}
		o, err := parseSpec(spec)
		if err == nil {
			_, err = Start(o)
		}
		if err != nil {
			envError = err
			fmt.Fprintf(os.Stderr, "kinformer tap: KINFORMER_TAP=%q: %v; the tap is off\n", spec, err)
		}
	})
	return current.Load()
}

// parseSpec reads KINFORMER_TAP: `file:PATH`, `listen:ADDR`, `record:PATH`, `lean`,
// comma-separated.
func parseSpec(spec string) (Options, error) {
	var o Options
	for _, part := range strings.Split(spec, ",") {
		kind, value, ok := strings.Cut(part, ":")
		switch {
		case part == "lean":
			o.Lean = true
		case ok && kind == "file" && value != "":
			o.File = value
		case ok && kind == "listen" && value != "":
			o.Listen = value
		case ok && kind == "record" && value != "":
			o.Record = value
		default:
			return o, fmt.Errorf("%q is none of file:PATH, listen:ADDR, record:PATH, lean", part)
		}
	}
	return o, nil
}

func start(o Options) (*Tap, error) {
	if o.File == "" && o.Listen == "" && o.Record == "" {
		return nil, errors.New("tap: no File, Listen address or Record file")
	}
	withDefaults(&o)
	t := &Tap{
		opts:      o,
		wake:      make(chan struct{}, 1),
		done:      make(chan struct{}),
		start:     time.Now(),
		clientGo:  clientGoVersion(),
		resources: map[string]*resourceState{},
	}
	t.pool.New = func() any { return &line{body: make([]byte, 0, 256)} }
	if o.File != "" {
		f, err := os.OpenFile(o.File, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("tap: %w", err)
		}
		t.file, t.out = f, bufio.NewWriterSize(f, 256*1024)
	}
	if o.Record != "" {
		rec, err := newRecorder(o.Record, t.start)
		if err != nil {
			if t.file != nil {
				t.file.Close()
			}
			return nil, err
		}
		t.rec = rec
	}
	if o.Listen != "" {
		if err := t.listen(o.Listen); err != nil {
			if t.file != nil {
				t.file.Close()
			}
			return nil, err
		}
	}
	go t.write()
	t.line("tap", "started").str("client_go", t.clientGo).optStr("listen", t.Addr()).
		num("buffer", int64(o.Buffer)).send()
	return t, nil
}

func withDefaults(o *Options) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = 256 << 20
	}
	if o.History <= 0 {
		o.History = 100000
	}
	if o.Buffer <= 0 {
		o.Buffer = 65536
	}
	if o.NotSyncedAfter <= 0 {
		o.NotSyncedAfter = 10 * time.Second
	}
	if o.BacklogWindow <= 0 {
		o.BacklogWindow = 2 * time.Second
	}
}

// clientGoVersion is the client-go module the program was built with ("" when unknown).
func clientGoVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range info.Deps {
		if m.Path == "k8s.io/client-go" {
			if m.Replace != nil {
				return m.Replace.Version
			}
			return m.Version
		}
	}
	return ""
}

// Addr is the address the HTTP endpoint listens on ("" without one).
func (t *Tap) Addr() string {
	if t == nil || t.listener == nil {
		return ""
	}
	return t.listener.Addr().String()
}

// Dropped is how many lines did not fit the buffer (or the file) so far.
func (t *Tap) Dropped() int64 { return t.dropped.Load() + atomic.LoadInt64(&t.overflow) }

// line starts a line of `stage`/`event`, stamped now.
func (t *Tap) line(stage, event string) *line { return t.lineAt(stage, event, time.Now()) }

// lineAt starts a line of `stage`/`event` that happened at `at`.
func (t *Tap) lineAt(stage, event string, at time.Time) *line {
	l := t.pool.Get().(*line)
	l.t, l.at, l.final = t, at, false
	l.body = append(l.body[:0], `"stage":`...)
	l.body = appendString(l.body, stage)
	l.body = append(l.body, `,"event":`...)
	l.body = appendString(l.body, event)
	return l
}

// enqueue hands a line to the writer, or drops and counts it when the buffer is full.
func (t *Tap) enqueue(l *line) {
	if t.closed.Load() {
		t.pool.Put(l)
		return
	}
	t.queueMu.Lock()
	if len(t.queue) >= t.opts.Buffer {
		t.queueMu.Unlock()
		t.dropped.Add(1)
		t.pool.Put(l)
		return
	}
	t.queue = append(t.queue, l)
	first := len(t.queue) == 1
	t.queueMu.Unlock()
	if first {
		t.signal()
	}
}

func (t *Tap) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// write numbers the lines in the order they were queued and writes them to the file and the
// HTTP readers, a whole batch per wake-up; the file is flushed after each batch.
func (t *Tap) write() {
	defer close(t.done)
	var buf []byte
	var batch []*line
	reported := int64(0)
	for range t.wake {
		t.queueMu.Lock()
		batch, t.queue = t.queue, batch[:0]
		t.queueMu.Unlock()
		final := false
		for i, l := range batch {
			buf = t.format(buf[:0], l)
			final = final || l.final
			t.pool.Put(l)
			batch[i] = nil
			t.emit(buf)
		}
		if d := t.dropped.Load(); d > reported {
			reported = d
			drop := t.line("tap", "dropped").num("dropped", d)
			buf = t.format(buf[:0], drop)
			t.pool.Put(drop)
			t.emit(buf)
		}
		if t.out != nil {
			t.out.Flush()
		}
		if final {
			return
		}
	}
}

func (t *Tap) format(buf []byte, l *line) []byte {
	t.seq++
	buf = append(buf, `{"seq":`...)
	buf = strconv.AppendInt(buf, t.seq, 10)
	buf = append(buf, `,"ts":"`...)
	buf = appendTime(buf, l.at)
	buf = append(buf, `",`...)
	buf = append(buf, l.body...)
	return append(buf, '}', '\n')
}

func (t *Tap) emit(b []byte) {
	if t.out != nil {
		if t.written+int64(len(b)) > t.opts.MaxBytes {
			atomic.AddInt64(&t.overflow, 1)
		} else {
			t.written += int64(len(b))
			t.out.Write(b)
		}
	}
	if t.hub != nil {
		t.hub.publish(b)
	}
}

// Close writes the summary (each handler's counts, the lines dropped), flushes the file and
// stops the HTTP endpoint; the package's Config and Informer go on without a tap afterwards.
func (t *Tap) Close() error {
	if t == nil || !t.closeOnce() {
		return nil
	}
	t.mu.Lock()
	informers := append([]*informer(nil), t.informers...)
	t.mu.Unlock()
	for _, inf := range informers {
		inf.stop()
	}
	s := t.line("summary", "summary")
	s.raw("handlers", t.handlerSummaries(informers)).num("dropped_lines", t.Dropped()).
		num("duration_ms", time.Since(t.start).Milliseconds()).str("stop_reason", "the tap was closed")
	t.closed.Store(true)
	s.final = true
	t.queueMu.Lock()
	t.queue = append(t.queue, s) // the summary, whatever the buffer holds
	t.queueMu.Unlock()
	t.signal()
	<-t.done
	err := t.rec.close()
	if t.file != nil {
		if closed := t.file.Close(); err == nil {
			err = closed
		}
	}
	if t.hub != nil {
		t.hub.close()
		t.listener.Close()
	}
	current.CompareAndSwap(t, nil)
	return err
}

func (t *Tap) closeOnce() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closing {
		return false
	}
	t.closing = true
	return true
}
