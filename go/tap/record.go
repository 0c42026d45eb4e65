package tap

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// recorder writes the traffic Config sees as a kinformer record file (docs/record-replay.md),
// so `kinformer replay` runs it through kinformer's model beside what the process did. The
// header names the resources, which are known only at the end, so entries go to FILE.part as
// they come and close writes the header and then the entries into FILE (both mode 0600).
// Objects are metadata only (name, namespace, resourceVersion): the tap reads no more of them.
type recorder struct {
	mu        sync.Mutex
	path      string
	part      *os.File
	out       *bufio.Writer
	start     time.Time
	resources []string
	err       error
}

func newRecorder(path string, start time.Time) (*recorder, error) {
	part, err := os.OpenFile(path+".part", os.O_CREATE|os.O_TRUNC|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("tap: record file: %w", err)
	}
	return &recorder{path: path, part: part, out: bufio.NewWriterSize(part, 256*1024), start: start}, nil
}

// entry appends one entry of resource r: `"KIND":VALUE` with VALUE already JSON.
func (rec *recorder) entry(r, kind string, value []byte) {
	if rec == nil {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	known := false
	for _, have := range rec.resources {
		known = known || have == r
	}
	if !known {
		rec.resources = append(rec.resources, r)
	}
	b := []byte(`{"t":`)
	b = fmt.Appendf(b, "%d", time.Since(rec.start).Milliseconds())
	b = append(b, `,"r":`...)
	b = appendString(b, r)
	b = append(b, ',', '"')
	b = append(b, kind...)
	b = append(b, `":`...)
	b = append(b, value...)
	b = append(b, '}', '\n')
	if _, err := rec.out.Write(b); err != nil && rec.err == nil {
		rec.err = err
	}
}

// close writes FILE: the header, every entry, the `stopped` line; removes FILE.part.
func (rec *recorder) close() error {
	if rec == nil {
		return nil
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	fmt.Fprintf(rec.out, "{\"t\":%d,\"stopped\":true}\n", time.Since(rec.start).Milliseconds())
	if err := rec.out.Flush(); err != nil && rec.err == nil {
		rec.err = err
	}
	if rec.err != nil {
		return fmt.Errorf("tap: record file: %w", rec.err)
	}
	header, _ := json.Marshal(map[string]any{
		"kinformer-record": 1,
		"created":          rec.start.UTC().Format(time.RFC3339Nano),
		"server_version":   nil,
		// replayed with the list strategy the recording shows, as a proxy's recording
		"client_go": "observed",
		"resources": rec.resources,
	})
	file, err := os.OpenFile(rec.path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("tap: record file: %w", err)
	}
	defer file.Close()
	if _, err := rec.part.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := file.Write(append(header, '\n')); err != nil {
		return err
	}
	if _, err := io.Copy(file, rec.part); err != nil {
		return err
	}
	rec.part.Close()
	return os.Remove(rec.path + ".part")
}

// object is a metadata-only object as the record embeds it.
func object(m objMeta) []byte {
	b := []byte(`{"metadata":{"name":"`)
	b = appendRaw(b, m.name)
	b = append(b, '"')
	if len(m.namespace) > 0 {
		b = append(b, `,"namespace":"`...)
		b = appendRaw(b, m.namespace)
		b = append(b, '"')
	}
	b = append(b, `,"resourceVersion":"`...)
	b = appendRaw(b, m.rv)
	return append(b, `"}}`...)
}

// apiError is a failure as the record's `error` (or an ERROR frame's `status`) says it.
func apiError(s status) []byte {
	if s.code == 0 {
		b := []byte(`{"kind":"transport","message":`)
		b = appendString(b, s.message)
		return append(b, '}')
	}
	b := []byte(`{"kind":"api","message":`)
	b = appendString(b, s.message)
	b = fmt.Appendf(b, `,"code":%d,"reason":`, s.code)
	b = appendString(b, s.reason)
	return append(b, '}')
}
