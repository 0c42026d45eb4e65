package tap

import (
	"fmt"
	"net"
	"net/http"
	"sync"
)

// hub is the HTTP endpoint's side of the writer: the recent lines (a new reader gets them
// first) and one bounded queue per reader; a reader that falls behind loses lines (a gap in
// `seq`) and never slows the writer.
type hub struct {
	mu      sync.Mutex
	history [][]byte
	limit   int
	readers map[*reader]struct{}
	closed  bool
}

// reader is one HTTP reader's queue; a line that does not fit is skipped (a gap in `seq`).
type reader struct {
	lines chan []byte
}

// listen starts the endpoint on a loopback address only.
func (t *Tap) listen(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("tap: listen address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("tap: listen address %q is not a loopback address (127.0.0.1, ::1)", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("tap: %w", err)
	}
	t.listener = l
	t.hub = &hub{limit: t.opts.History, readers: map[*reader]struct{}{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/trace", t.hub.serve)
	go http.Serve(l, mux)
	return nil
}

func (h *hub) publish(b []byte) {
	line := append([]byte(nil), b...)
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.history) >= h.limit {
		n := copy(h.history, h.history[len(h.history)/2:])
		h.history = h.history[:n]
	}
	h.history = append(h.history, line)
	for r := range h.readers {
		select {
		case r.lines <- line:
		default:
		}
	}
}

func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for r := range h.readers {
		close(r.lines)
		delete(h.readers, r)
	}
}

// serve streams the history, then every new line, until the reader goes or the tap closes.
func (h *hub) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		http.Error(w, "the tap is closed", http.StatusGone)
		return
	}
	past := append([][]byte(nil), h.history...)
	r := &reader{lines: make(chan []byte, 65536)}
	h.readers[r] = struct{}{}
	h.mu.Unlock()
	defer h.leave(r)

	w.Header().Set("Content-Type", "application/jsonl")
	flusher, _ := w.(http.Flusher)
	for _, l := range past {
		if _, err := w.Write(l); err != nil {
			return
		}
	}
	for {
		if flusher != nil {
			flusher.Flush()
		}
		select {
		case l, ok := <-r.lines:
			if !ok {
				return
			}
			if _, err := w.Write(l); err != nil {
				return
			}
			for drained := false; !drained; {
				select {
				case l, ok := <-r.lines:
					if !ok {
						return
					}
					if _, err := w.Write(l); err != nil {
						return
					}
				default:
					drained = true
				}
			}
		case <-req.Context().Done():
			return
		}
	}
}

func (h *hub) leave(r *reader) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.readers, r)
}
