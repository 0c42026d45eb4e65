package replay

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"kinformer.dev/oracle/out"
	"kinformer.dev/oracle/record"
)

// session is one replay run's shared state: the recorded clock, the entries left, the end.
type session struct {
	ctx       context.Context
	start     time.Time
	log       *out.Log
	mu        sync.Mutex
	remaining int
	// ended is closed once every entry was handed out or a call mismatched.
	ended   chan struct{}
	endOnce sync.Once
	// why says how it ended: "finished", "mismatch" or "panic".
	why string
}

func newSession(ctx context.Context, log *out.Log, entries int) *session {
	s := &session{ctx: ctx, start: time.Now(), log: log, remaining: entries, ended: make(chan struct{})}
	s.consumed(0)
	return s
}

// consumed counts n more entries handed out; none left ends the replay.
func (s *session) consumed(n int) {
	s.mu.Lock()
	s.remaining -= n
	left := s.remaining
	s.mu.Unlock()
	if left == 0 {
		s.end("finished")
	}
}

func (s *session) left() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.remaining
}

func (s *session) end(why string) {
	s.endOnce.Do(func() {
		s.why = why
		close(s.ended)
	})
}

// due is when the entry at offset t is released.
func (s *session) due(t int64) time.Time {
	return s.start.Add(time.Duration(t) * time.Millisecond)
}

// sleepUntil waits for offset t (never before now); false when stop or the run ended first.
func (s *session) sleepUntil(stop <-chan struct{}, t int64) bool {
	d := time.Until(s.due(t))
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-stop:
		return false
	case <-s.ctx.Done():
		return false
	}
}

// source answers one resource's reflector from its recorded exchanges, in order.
type source struct {
	resource string
	s        *session
	mu       sync.Mutex
	queue    []*record.Exchange
}

var (
	_ cache.ListerWatcher = (*source)(nil)
)

// next takes the next exchange; past the end of the recording it waits for the run to end.
func (src *source) next() *record.Exchange {
	src.mu.Lock()
	if len(src.queue) > 0 {
		x := src.queue[0]
		src.queue = src.queue[1:]
		src.mu.Unlock()
		return x
	}
	src.mu.Unlock()
	<-src.s.ctx.Done()
	return nil
}

// mismatched writes the mismatch line and ends the replay, as kinformer's replay does (exit 7).
func (src *source) mismatched(line int, recorded, asked string) error {
	src.s.log.Emit(out.Fields{"event": "mismatch", "resource": src.resource, "line": line,
		"message": fmt.Sprintf("the recording has a %s here where this replay asks for a %s", recorded, asked)})
	src.s.end("mismatch")
	<-src.s.ctx.Done()
	return src.s.ctx.Err()
}

func (src *source) note(line int, msg string) {
	src.s.log.Emit(out.Fields{"event": "note", "resource": src.resource, "line": line, "message": msg})
}

// List answers a LIST (ListerWatcher, every release).
func (src *source) List(opts metav1.ListOptions) (runtime.Object, error) {
	return src.ListWithContext(src.s.ctx, opts)
}

// ListWithContext answers a LIST (ListerWatcherWithContext, 1.33+), behind the REST layer's
// silent retries (rest.go).
func (src *source) ListWithContext(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	for attempt := 1; ; attempt++ {
		obj, failure, err := src.listOnce(opts, attempt)
		if !src.retried(failure, false, attempt) {
			return obj, err
		}
	}
}

// listOnce answers one LIST request, the REST layer's attempt-th; failure is the recorded error
// it was answered with.
func (src *source) listOnce(opts metav1.ListOptions, attempt int) (runtime.Object, *record.Failure, error) {
	src.s.log.Emit(out.Fields{"event": "request", "resource": src.resource, "verb": "list",
		"rv": opts.ResourceVersion, "rvm": string(opts.ResourceVersionMatch), "limit": opts.Limit,
		"continue": opts.Continue, "attempt": attempt})
	x := src.next()
	if x == nil {
		return nil, nil, src.s.ctx.Err()
	}
	if x.List == nil {
		return nil, nil, src.mismatched(x.Line, "WATCH", "LIST")
	}
	src.s.consumed(1)
	if asked, recorded := describeList(opts.ResourceVersion, opts.Limit, opts.Continue), describeRec(x.List); asked != recorded {
		src.note(x.Line, fmt.Sprintf("LIST asked with %s, recorded with %s; answered as recorded", asked, recorded))
	}
	if x.Answer == nil || !src.s.sleepUntil(nil, x.Answer.T) {
		<-src.s.ctx.Done()
		return nil, nil, src.s.ctx.Err()
	}
	src.s.consumed(1)
	if f := x.Answer.Value.Error; f != nil {
		return nil, f, callError(f)
	}
	obj, err := list(x.Answer.Value.Page)
	return obj, nil, err
}

func describeList(rv string, limit int64, cont string) string {
	return fmt.Sprintf("resourceVersion %q, limit=%d, continue=%q", rv, limit, cont)
}

func describeRec(l *record.ListRec) string {
	return describeList(l.RV, l.Limit, derefStr(l.Continue))
}

func derefStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Watch answers a WATCH (ListerWatcher, every release).
func (src *source) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return src.WatchWithContext(src.s.ctx, opts)
}

// WatchWithContext answers a WATCH (ListerWatcherWithContext, 1.33+), behind the REST layer's
// silent retries (rest.go).
func (src *source) WatchWithContext(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	for attempt := 1; ; attempt++ {
		w, failure, err := src.watchOnce(opts, attempt)
		if src.retried(failure, true, attempt) {
			continue
		}
		if failure != nil && *restRetry && eofLike(failure, true) {
			// The retries ran out on an EOF-like failure: request.go answers an empty watch.
			return watch.NewEmptyWatch(), nil
		}
		return w, err
	}
}

// watchOnce answers one WATCH request, the REST layer's attempt-th; failure is the recorded
// error it was answered with.
func (src *source) watchOnce(opts metav1.ListOptions, attempt int) (watch.Interface, *record.Failure, error) {
	initial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	src.s.log.Emit(out.Fields{"event": "request", "resource": src.resource, "verb": "watch",
		"rv": opts.ResourceVersion, "rvm": string(opts.ResourceVersionMatch), "send_initial_events": initial,
		"allow_bookmarks": opts.AllowWatchBookmarks, "attempt": attempt})
	x := src.next()
	if x == nil {
		return nil, nil, src.s.ctx.Err()
	}
	if x.Watch == nil {
		return nil, nil, src.mismatched(x.Line, "LIST", "WATCH")
	}
	src.s.consumed(1)
	if x.Watch.RV != opts.ResourceVersion || x.Watch.InitialEvents != initial {
		src.note(x.Line, fmt.Sprintf("WATCH asked from resourceVersion %q (initial events: %t), recorded from %q (initial events: %t); answered as recorded",
			opts.ResourceVersion, initial, x.Watch.RV, x.Watch.InitialEvents))
	}
	if x.OpenError != nil {
		if !src.s.sleepUntil(nil, x.OpenError.T) {
			return nil, nil, src.s.ctx.Err()
		}
		src.s.consumed(1)
		return nil, &x.OpenError.Value, callError(&x.OpenError.Value)
	}
	return newWatcher(src.s, x), nil, nil
}

// IsWatchListSemanticsUnSupported says this source serves watch-list requests (1.35+ asks).
func (src *source) IsWatchListSemanticsUnSupported() bool { return false }

// watcher hands a recorded watch's items out at their times on an unbuffered channel.
type watcher struct {
	result chan watch.Event
	stop   chan struct{}
	once   sync.Once
}

func newWatcher(s *session, x *record.Exchange) *watcher {
	w := &watcher{result: make(chan watch.Event), stop: make(chan struct{})}
	go w.run(s, x)
	return w
}

// Stop ends the watch (the reflector calls it once it is done with the watch).
func (w *watcher) Stop() { w.once.Do(func() { close(w.stop) }) }

// ResultChan is the watch's event channel.
func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

func (w *watcher) run(s *session, x *record.Exchange) {
	defer close(w.result)
	for _, item := range x.Items {
		if !s.sleepUntil(w.stop, item.T) {
			return
		}
		s.consumed(1)
		ev, done := w.event(item.Value)
		if ev != nil && !w.send(s, *ev) {
			return
		}
		if done {
			return
		}
	}
	if !x.Closed() {
		select {
		case <-w.stop:
		case <-s.ctx.Done():
		}
	}
}

// event is what the item hands the reflector, and whether the stream ends after it.
func (w *watcher) event(item record.Item) (*watch.Event, bool) {
	switch {
	case item.End:
		return nil, true
	case item.StreamError != nil:
		return streamFailure(item.StreamError), true
	}
	ev, err := frameEvent(item.Frame)
	if err != nil {
		return streamFailure(&record.Failure{Kind: "decode", Message: err.Error()}), true
	}
	return &ev, false
}

func (w *watcher) send(s *session, ev watch.Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.stop:
		return false
	case <-s.ctx.Done():
		return false
	}
}
