package replay

import (
	"context"
	"fmt"
	"sync"
	"time"

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

// source answers one resource's requests from its recorded exchanges, in order.
type source struct {
	resource string
	s        *session
	mu       sync.Mutex
	queue    []*record.Exchange
	// kind is the resource's object kind and apiVersion, for what the recording leaves out.
	kind typeMeta
}

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
