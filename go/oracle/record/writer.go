package record

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/klauspost/compress/zstd"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Writer writes a kinformer record file (version 1; docs/record-replay.md) of one client's
// ListerWatcher traffic: the live mode's own requests and what answered them, as the reflector
// saw them (after client-go's REST layer, whose silent retries it does not see). A name ending
// in .zst is zstd-compressed. Safe for concurrent use.
type Writer struct {
	mu    sync.Mutex
	start time.Time
	file  *os.File
	zw    *zstd.Encoder
	buf   *bufio.Writer
	err   error
}

// Create starts a record file at path with its header; clientGo is the release ("1.37").
func Create(path, clientGo, serverVersion string, resources []string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &Writer{start: time.Now(), file: f}
	var sink io.Writer = f
	if strings.HasSuffix(path, ".zst") {
		if w.zw, err = zstd.NewWriter(f); err != nil {
			f.Close()
			return nil, err
		}
		sink = w.zw
	}
	w.buf = bufio.NewWriter(sink)
	w.line(map[string]any{"kinformer-record": 1, "created": w.start.UTC().Format(time.RFC3339Nano),
		"server_version": serverVersion, "client_go": clientGo, "resources": resources})
	return w, nil
}

// line writes one JSON line; the first error is kept for Close.
func (w *Writer) line(v any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err == nil {
		b = append(b, '\n')
		_, err = w.buf.Write(b)
	}
	w.err = err
}

// entry writes one entry of resource r, stamped with the time since the recording started.
func (w *Writer) entry(r, key string, value any) {
	w.line(map[string]any{"t": time.Since(w.start).Milliseconds(), "r": r, key: value})
}

// List writes a LIST request.
func (w *Writer) List(r string, opts metav1.ListOptions) {
	l := map[string]any{"rv": opts.ResourceVersion}
	if opts.Limit > 0 {
		l["limit"] = opts.Limit
	}
	if opts.Continue != "" {
		l["continue"] = opts.Continue
	}
	w.entry(r, "list", l)
}

// ListAnswer writes what answered the LIST before it: a page or the failure.
func (w *Writer) ListAnswer(r string, obj runtime.Object, err error) {
	if err != nil {
		w.entry(r, "error", failure(err))
		return
	}
	l, lerr := meta.ListAccessor(obj)
	items, ierr := meta.ExtractList(obj)
	if lerr != nil || ierr != nil {
		w.entry(r, "error", map[string]any{"kind": "decode", "message": errors.Join(lerr, ierr).Error()})
		return
	}
	raws := make([]json.RawMessage, 0, len(items))
	for _, item := range items {
		raw, err := json.Marshal(item)
		if err != nil {
			w.entry(r, "error", map[string]any{"kind": "decode", "message": err.Error()})
			return
		}
		raws = append(raws, raw)
	}
	var cont *string
	if c := l.GetContinue(); c != "" {
		cont = &c
	}
	w.entry(r, "page", map[string]any{"rv": l.GetResourceVersion(), "continue": cont, "items": raws})
}

// Watch writes a WATCH request and, when it failed, its failure; else it returns the watch,
// wrapped so that its events and its end are written as they pass.
func (w *Writer) Watch(r string, opts metav1.ListOptions, inner watch.Interface, err error) (watch.Interface, error) {
	var timeout int64
	if opts.TimeoutSeconds != nil {
		timeout = *opts.TimeoutSeconds
	}
	w.entry(r, "watch", map[string]any{"rv": opts.ResourceVersion, "timeout_s": timeout,
		"initial_events": opts.SendInitialEvents != nil && *opts.SendInitialEvents})
	if err != nil {
		w.entry(r, "error", failure(err))
		return nil, err
	}
	rw := &recordedWatch{w: w, r: r, inner: inner, result: make(chan watch.Event), stopped: make(chan struct{})}
	go rw.run()
	return rw, nil
}

// Close writes the `stopped` line and closes the file.
func (w *Writer) Close() error {
	w.line(map[string]any{"t": time.Since(w.start).Milliseconds(), "stopped": true})
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.err
	err = errors.Join(err, w.buf.Flush())
	if w.zw != nil {
		err = errors.Join(err, w.zw.Close())
	}
	return errors.Join(err, w.file.Close())
}

// recordedWatch passes a watch's events on, writing each as a frame and a server-side end as
// `end` (a watch the reflector stops itself ends with the next request instead).
type recordedWatch struct {
	w        *Writer
	r        string
	inner    watch.Interface
	result   chan watch.Event
	stopped  chan struct{}
	stopOnce sync.Once
}

func (rw *recordedWatch) ResultChan() <-chan watch.Event { return rw.result }

func (rw *recordedWatch) Stop() {
	rw.stopOnce.Do(func() { close(rw.stopped) })
	rw.inner.Stop()
}

func (rw *recordedWatch) run() {
	defer close(rw.result)
	for ev := range rw.inner.ResultChan() {
		rw.w.entry(rw.r, "frame", frame(ev))
		select {
		case rw.result <- ev:
		case <-rw.stopped:
			return
		}
	}
	select {
	case <-rw.stopped:
	default:
		rw.w.entry(rw.r, "end", true)
	}
}

// frame is a watch event in the record's form.
func frame(ev watch.Event) map[string]any {
	f := map[string]any{"type": string(ev.Type)}
	switch ev.Type {
	case watch.Bookmark:
		if m, err := meta.Accessor(ev.Object); err == nil {
			f["rv"] = m.GetResourceVersion()
			f["initial_events_end"] = m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
		}
	case watch.Error:
		f["status"] = failure(apierrors.FromObject(ev.Object))
	default:
		f["object"] = ev.Object
	}
	return f
}

// failure is a request's error in the record's form (kinformer's `kind`s).
func failure(err error) map[string]any {
	f := map[string]any{"message": err.Error()}
	var status apierrors.APIStatus
	var nerr net.Error
	switch {
	case errors.As(err, &status):
		s := status.Status()
		f["kind"], f["code"], f["reason"] = "api", s.Code, string(s.Reason)
		if s.Details != nil && s.Details.RetryAfterSeconds > 0 {
			f["retry_after_ms"] = int64(s.Details.RetryAfterSeconds) * 1000
		}
		if apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
			f["too_large_rv"] = true
		}
	case errors.Is(err, syscall.ECONNREFUSED):
		f["kind"] = "refused"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		f["kind"] = "eof"
	case errors.As(err, &nerr) && nerr.Timeout():
		f["kind"] = "timeout"
	default:
		f["kind"] = "transport"
	}
	return f
}
