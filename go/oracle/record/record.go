// Package record reads kinformer's record files (version 1, plain or zstd-compressed JSONL) and
// groups each resource's entries into exchanges the way kinformer's replay does
// (src/informer/source/replay.rs, add_entry): a request opens an exchange, a page or an error
// answers a LIST, an error before any frame fails a WATCH open, frames, stream errors and the
// end belong to the open watch.
package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// Header is a record file's first line.
type Header struct {
	Version  int      `json:"kinformer-record"`
	ClientGo string   `json:"client_go"`
	Created  string   `json:"created"`
	Server   string   `json:"server_version"`
	Streams  []string `json:"resources"`
}

// ListRec is a recorded LIST request.
type ListRec struct {
	RV       string  `json:"rv"`
	Limit    int64   `json:"limit"`
	Continue *string `json:"continue"`
}

// WatchRec is a recorded WATCH request.
type WatchRec struct {
	RV            string `json:"rv"`
	TimeoutS      int64  `json:"timeout_s"`
	InitialEvents bool   `json:"initial_events"`
}

// Page is a recorded LIST answer.
type Page struct {
	RV       string            `json:"rv"`
	Continue *string           `json:"continue"`
	Items    []json.RawMessage `json:"items"`
}

// Failure is a recorded error: of a request (error), of a stream (stream_error), or a watch
// ERROR frame's status.
type Failure struct {
	Kind         string `json:"kind"`
	Message      string `json:"message"`
	Code         int32  `json:"code"`
	Reason       string `json:"reason"`
	RetryAfterMs *int64 `json:"retry_after_ms"`
	TooLargeRV   bool   `json:"too_large_rv"`
}

// Frame is a recorded watch frame.
type Frame struct {
	Type             string          `json:"type"`
	Object           json.RawMessage `json:"object"`
	RV               string          `json:"rv"`
	InitialEventsEnd bool            `json:"initial_events_end"`
	Status           *Failure        `json:"status"`
}

// entryRec is one line after the header.
type entryRec struct {
	T           int64     `json:"t"`
	R           *string   `json:"r"`
	Stopped     bool      `json:"stopped"`
	List        *ListRec  `json:"list"`
	Page        *Page     `json:"page"`
	Watch       *WatchRec `json:"watch"`
	Frame       *Frame    `json:"frame"`
	Error       *Failure  `json:"error"`
	StreamError *Failure  `json:"stream_error"`
	End         bool      `json:"end"`
}

// Timed is an answer or a stream item with its offset (ms after the recording started).
type Timed[T any] struct {
	T     int64
	Value T
}

// Answer is a LIST's answer: a page or a failure.
type Answer struct {
	Page  *Page
	Error *Failure
}

// Item is one item of a recorded watch after it opened: a frame, a stream error, or the end.
type Item struct {
	Frame       *Frame
	StreamError *Failure
	End         bool
}

// Exchange is one request and what answered it; exactly one of List and Watch is set.
type Exchange struct {
	Line      int
	List      *ListRec
	Answer    *Timed[Answer]
	Watch     *WatchRec
	OpenError *Timed[Failure]
	Items     []Timed[Item]
}

// Closed says whether a watch exchange's last item ended it.
func (x *Exchange) Closed() bool {
	n := len(x.Items)
	return n > 0 && (x.Items[n-1].Value.End || x.Items[n-1].Value.StreamError != nil)
}

// File is a record file read and grouped.
type File struct {
	Header Header
	// Exchanges per stream, in the header's order of streams.
	Exchanges map[string][]*Exchange
	// Entries counts the entries (every line but the header and the stopped line).
	Entries int
	// LastT is the stopped line's offset, else the last entry's.
	LastT int64
}

// Load reads path; a non-empty stream keeps only that stream (a proxy recording's CLIENT/RESOURCE).
func Load(path, stream string) (*File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text, err := decompress(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := parse(text, stream)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	return f, nil
}

func decompress(raw []byte) ([]byte, error) {
	if !bytes.HasPrefix(raw, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		return raw, nil
	}
	d, err := zstd.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return io.ReadAll(d)
}

func parse(text []byte, stream string) (*File, error) {
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	f := &File{Exchanges: map[string][]*Exchange{}}
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			if err := json.Unmarshal(sc.Bytes(), &f.Header); err != nil || f.Header.Version != 1 {
				return nil, fmt.Errorf("1: not a kinformer record file (version 1)")
			}
			if err := f.selectStream(stream); err != nil {
				return nil, err
			}
			continue
		}
		if err := f.add(line, sc.Bytes(), stream); err != nil {
			return nil, fmt.Errorf("%d: %w", line, err)
		}
	}
	return f, sc.Err()
}

func (f *File) selectStream(stream string) error {
	if stream == "" {
		return nil
	}
	for _, s := range f.Header.Streams {
		if s == stream {
			f.Header.Streams = []string{stream}
			return nil
		}
	}
	return fmt.Errorf("1: no stream %q in this recording (it has: %v)", stream, f.Header.Streams)
}

func (f *File) add(line int, text []byte, stream string) error {
	var e entryRec
	if err := json.Unmarshal(text, &e); err != nil {
		return err
	}
	if e.R == nil {
		if !e.Stopped {
			return fmt.Errorf("a line without a resource that is not the stopped line")
		}
		f.LastT = max(f.LastT, e.T)
		return nil
	}
	if stream != "" && *e.R != stream {
		return nil
	}
	f.Entries++
	f.LastT = max(f.LastT, e.T)
	q, err := addEntry(f.Exchanges[*e.R], line, &e)
	f.Exchanges[*e.R] = q
	return err
}

// addEntry mirrors replay.rs add_entry.
func addEntry(q []*Exchange, line int, e *entryRec) ([]*Exchange, error) {
	var last *Exchange
	if len(q) > 0 {
		last = q[len(q)-1]
	}
	switch {
	case e.List != nil:
		return append(q, &Exchange{Line: line, List: e.List}), nil
	case e.Watch != nil:
		return append(q, &Exchange{Line: line, Watch: e.Watch}), nil
	case e.Page != nil:
		if last == nil || last.List == nil || last.Answer != nil {
			return q, fmt.Errorf("a page with no LIST request before it")
		}
		last.Answer = &Timed[Answer]{e.T, Answer{Page: e.Page}}
	case e.Error != nil && last != nil && last.List != nil && last.Answer == nil:
		last.Answer = &Timed[Answer]{e.T, Answer{Error: e.Error}}
	case e.Error != nil && last != nil && last.Watch != nil && last.OpenError == nil && len(last.Items) == 0:
		last.OpenError = &Timed[Failure]{e.T, *e.Error}
	case e.Error != nil:
		return q, fmt.Errorf("an error with no pending request before it")
	case last != nil && last.Watch != nil && last.OpenError == nil && !last.Closed():
		last.Items = append(last.Items, Timed[Item]{e.T, Item{Frame: e.Frame, StreamError: e.StreamError, End: e.End}})
	default:
		return q, fmt.Errorf("a watch frame or end with no open WATCH before it")
	}
	return q, nil
}
