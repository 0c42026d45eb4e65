// Package out collects one run's JSONL lines: every line is written whole under one mutex,
// stamped with the run's (virtual) time in milliseconds.
package out

import (
	"encoding/json"
	"sync"
	"time"
)

// Log is one run's output.
type Log struct {
	mu     sync.Mutex
	start  time.Time
	lines  []string
	closed bool
}

// New starts a log whose t_ms count from now.
func New() *Log {
	return &Log{start: time.Now()}
}

// Fields is one line's content; Emit adds t_ms.
type Fields map[string]any

// Emit appends one line (keys sorted, as encoding/json writes maps); after Close it does nothing
// (what goroutines still do while the informer stops is not part of the run).
func (l *Log) Emit(f Fields) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	f["t_ms"] = time.Since(l.start).Milliseconds()
	b, err := json.Marshal(f)
	if err != nil {
		b, _ = json.Marshal(Fields{"event": "error", "message": err.Error()})
	}
	l.lines = append(l.lines, string(b))
}

// Close ends the run's output.
func (l *Log) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
}

// Lines returns the lines written so far.
func (l *Log) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}
