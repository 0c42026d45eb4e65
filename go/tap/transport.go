package tap

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Config returns a copy of config whose clients' LISTs and WATCHes of collections are traced
// (reflector lines: list-start, list-page, list-done, list-error, watch-start, watch-event,
// bookmark, watch-end, watch-error, relist), in process, as `kinformer proxy` sees them on the
// wire. It wraps the transport outside the config's authentication (rest.Config.Wrap), so
// kubeconfig credentials and exec plugins work unchanged and are never seen. With the tap
// off it returns config itself.
func Config(config *rest.Config) *rest.Config {
	t := Active()
	if t == nil {
		return config
	}
	c := rest.CopyConfig(config)
	c.Wrap(func(next http.RoundTripper) http.RoundTripper { return &roundTripper{next: next, t: t} })
	return c
}

type roundTripper struct {
	next http.RoundTripper
	t    *Tap
}

// request is a LIST or WATCH of a collection, as its URL says.
type request struct {
	resource, namespace, path string
	watch, watchList          bool
	rv, limit, cont, timeout  string
}

func (r request) verb() string {
	if r.watch {
		return "watch"
	}
	return "list"
}

// parseRequest reads a GET of /api/v1/[namespaces/NS/]RES or /apis/G/V/[namespaces/NS/]RES.
func parseRequest(req *http.Request) (request, bool) {
	if req.Method != http.MethodGet {
		return request{}, false
	}
	seg := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	var group string
	switch {
	case len(seg) >= 3 && seg[0] == "api":
		seg = seg[2:]
	case len(seg) >= 4 && seg[0] == "apis":
		group, seg = seg[1], seg[3:]
	default:
		return request{}, false
	}
	r := request{path: req.URL.Path}
	if len(seg) == 3 && seg[0] == "namespaces" {
		r.namespace, seg = seg[1], seg[2:]
	}
	if len(seg) != 1 {
		return request{}, false
	}
	r.resource = seg[0]
	if group != "" {
		r.resource += "." + group
	}
	q := req.URL.Query()
	r.watch = q.Get("watch") == "true" || q.Get("watch") == "1"
	r.watchList = r.watch && q.Get("sendInitialEvents") == "true"
	r.rv, r.limit, r.cont, r.timeout = q.Get("resourceVersion"), q.Get("limit"), q.Get("continue"), q.Get("timeoutSeconds")
	return r, true
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	r, ok := parseRequest(req)
	if !ok {
		return rt.next.RoundTrip(req)
	}
	t := rt.t
	t.requestStarted(r)
	resp, err := rt.next.RoundTrip(req)
	if err != nil {
		s := status{reason: "Transport", message: err.Error()}
		t.rec.entry(r.resource, "error", apiError(s))
		t.failed(r, s)
		return resp, err
	}
	if resp.StatusCode >= 300 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		s := readStatus(resp, body)
		t.rec.entry(r.resource, "error", apiError(s))
		t.failed(r, s)
		return resp, nil
	}
	format := formatOf(resp.Header.Get("Content-Type"))
	if r.watch {
		resp.Body = &watchBody{ReadCloser: resp.Body, t: t, r: r, format: format, rv: []byte(r.rv)}
	} else {
		resp.Body = &listBody{ReadCloser: resp.Body, t: t, r: r, format: format}
	}
	return resp, nil
}

type format int

const (
	other format = iota
	protobuf
	jsonFormat
)

func formatOf(contentType string) format {
	switch {
	case strings.HasPrefix(contentType, "application/vnd.kubernetes.protobuf"):
		return protobuf
	case strings.HasPrefix(contentType, "application/json"):
		return jsonFormat
	}
	return other
}

// readStatus is a failed answer's Status (JSON or protobuf), or its HTTP status alone.
func readStatus(resp *http.Response, body []byte) status {
	s := status{code: int64(resp.StatusCode)}
	switch formatOf(resp.Header.Get("Content-Type")) {
	case protobuf:
		if msg, ok := unenvelope(body); ok {
			p := pbStatus(msg)
			s.reason, s.message = p.reason, p.message
		}
	case jsonFormat:
		var j struct{ Reason, Message string }
		if json.Unmarshal(body, &j) == nil {
			s.reason, s.message = j.Reason, j.Message
		}
	}
	if s.reason == "" {
		s.reason = strings.ReplaceAll(http.StatusText(resp.StatusCode), " ", "")
	}
	return s
}

// resourceState is what the tap remembers of one resource's informer traffic: for relists and
// for the diagnosis of an informer that does not sync.
type resourceState struct {
	lists   int
	pages   int
	items   int
	lastEnd string // why the last stream ended or failed: the next relist's reason
	failure *failure
	// a watch-list waiting for its initial-events-end bookmark (over as many streams as the
	// server ends before it), since when
	watchListWaiting bool
	watchListSince   time.Time
}

// failure is the last failed request of a resource.
type failure struct {
	request
	status
	at time.Time
}

func (t *Tap) state(resource string) *resourceState {
	s := t.resources[resource]
	if s == nil {
		s = &resourceState{}
		t.resources[resource] = s
	}
	return s
}

// requestStarted traces a LIST's or WATCH's start; a LIST (or watch-list) after the resource's
// first is a relist, whose reason is how the stream before it ended.
func (t *Tap) requestStarted(r request) {
	t.mu.Lock()
	s := t.state(r.resource)
	relist, reason := false, ""
	// a watch-list opened again before its bookmark goes on with the same list
	again := r.watchList && s.watchListWaiting
	if ((!r.watch && r.cont == "") || r.watchList) && !again {
		relist, reason = s.lists > 0, s.lastEnd
		s.lists++
		s.pages, s.items = 0, 0
	}
	if r.watchList && !again {
		s.watchListWaiting, s.watchListSince = true, time.Now()
	}
	t.mu.Unlock()
	if relist {
		if reason == "" {
			reason = "unknown"
		}
		t.line("reflector", "relist").str("resource", r.resource).str("reason", reason).send()
	}
	t.recordRequest(r)
	switch {
	case r.watch:
		l := t.line("reflector", "watch-start").str("resource", r.resource).str("rv", r.rv)
		if n, ok := atoi(r.timeout); ok {
			l.num("timeout_s", n)
		}
		l.flag("watch_list", r.watchList).optStr("namespace", r.namespace).send()
	case r.cont == "":
		l := t.line("reflector", "list-start").str("resource", r.resource).str("rv", r.rv)
		if n, ok := atoi(r.limit); ok {
			l.num("limit", n)
		}
		l.flag("watch_list", false).optStr("namespace", r.namespace).send()
	}
}

// recordRequest writes a LIST's or WATCH's request entry.
func (t *Tap) recordRequest(r request) {
	if t.rec == nil {
		return
	}
	b := []byte(`{"rv":`)
	b = appendString(b, r.rv)
	if r.watch {
		if n, ok := atoi(r.timeout); ok {
			b = fmt.Appendf(b, `,"timeout_s":%d`, n)
		}
		b = fmt.Appendf(b, `,"initial_events":%t}`, r.watchList)
		t.rec.entry(r.resource, "watch", b)
		return
	}
	if n, ok := atoi(r.limit); ok {
		b = fmt.Appendf(b, `,"limit":%d`, n)
	}
	if r.cont != "" {
		b = append(b, `,"continue":`...)
		b = appendString(b, r.cont)
	}
	t.rec.entry(r.resource, "list", append(b, '}'))
}

func atoi(s string) (int64, bool) {
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		return 0, false
	}
	return n, true
}

// failed traces a request that failed (list-error or watch-error) and keeps it for the
// diagnosis.
func (t *Tap) failed(r request, s status) {
	event := "list-error"
	if r.watch {
		event = "watch-error"
	}
	l := t.line("reflector", event).str("resource", r.resource)
	if s.code != 0 {
		l.num("code", s.code)
	}
	l.str("reason", s.reason).str("message", s.message).str("verb", r.verb()).optStr("namespace", r.namespace).send()
	t.mu.Lock()
	st := t.state(r.resource)
	st.failure = &failure{request: r, status: s, at: time.Now()}
	st.lastEnd = strings.TrimSpace(fmt.Sprintf("%s %s", codeText(s.code), s.reason))
	if r.watchList {
		st.watchListWaiting = false
	}
	t.mu.Unlock()
}

func codeText(code int64) string {
	if code == 0 {
		return ""
	}
	return fmt.Sprint(code)
}

// listBody reads a LIST answer as the client reads it and traces its page when it ends.
type listBody struct {
	io.ReadCloser
	t      *Tap
	r      request
	format format
	buf    []byte
	once   sync.Once
}

func (b *listBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.buf = append(b.buf, p[:n]...)
	if err == io.EOF {
		b.once.Do(b.done)
	}
	return n, err
}

func (b *listBody) Close() error {
	b.once.Do(b.done)
	return b.ReadCloser.Close()
}

func (b *listBody) done() {
	rv, cont, items, ok := "", "", 0, false
	var metas []objMeta
	var keep func(objMeta)
	if b.t.rec != nil {
		keep = func(m objMeta) { metas = append(metas, m) }
	}
	switch b.format {
	case protobuf:
		rv, cont, items, ok = pbList(b.buf, keep)
	case jsonFormat:
		var j struct {
			Metadata struct{ ResourceVersion, Continue string }
			Items    []struct {
				Metadata struct{ Name, Namespace, ResourceVersion string }
			}
		}
		ok = json.Unmarshal(b.buf, &j) == nil
		rv, cont, items = j.Metadata.ResourceVersion, j.Metadata.Continue, len(j.Items)
		for _, item := range j.Items {
			if keep != nil {
				m := item.Metadata
				keep(objMeta{name: []byte(m.Name), namespace: []byte(m.Namespace), rv: []byte(m.ResourceVersion)})
			}
		}
	}
	t := b.t
	if ok && t.rec != nil {
		t.rec.entry(b.r.resource, "page", page(rv, cont, metas))
	}
	b.buf = nil
	if !ok {
		t.line("reflector", "list-page").str("resource", b.r.resource).str("note", "answer not read (CBOR or cut short)").send()
		return
	}
	t.mu.Lock()
	s := t.state(b.r.resource)
	s.pages++
	s.items += items
	pages, total := s.pages, s.items
	t.mu.Unlock()
	t.line("reflector", "list-page").str("resource", b.r.resource).num("page", int64(pages)).
		num("items", int64(items)).flag("more", cont != "").send()
	if cont == "" {
		t.line("reflector", "list-done").str("resource", b.r.resource).num("items", int64(total)).
			num("pages", int64(pages)).str("rv", rv).send()
	}
}

// page is a LIST answer as the record's `page` entry holds it.
func page(rv, cont string, items []objMeta) []byte {
	b := []byte(`{"rv":`)
	b = appendString(b, rv)
	b = append(b, `,"continue":`...)
	if cont == "" {
		b = append(b, "null"...)
	} else {
		b = appendString(b, cont)
	}
	b = append(b, `,"items":[`...)
	for i, m := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, object(m)...)
	}
	return append(b, "]}"...)
}

// watchBody reads a WATCH stream as the client reads it: each event, bookmark and ERROR is
// traced as its frame completes, and how the stream ended when it does.
type watchBody struct {
	io.ReadCloser
	t      *Tap
	r      request
	format format
	buf    []byte
	rv     []byte // the last resourceVersion the stream gave
	events int64
	failed bool
	once   sync.Once
}

func (b *watchBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && b.format != other {
		b.buf = append(b.buf, p[:n]...)
		b.frames()
	}
	if err != nil {
		reason := "closed by server"
		if !errors.Is(err, io.EOF) {
			reason = err.Error()
		}
		b.once.Do(func() {
			if errors.Is(err, io.EOF) {
				b.t.rec.entry(b.r.resource, "end", []byte("true"))
			} else {
				m := []byte(`{"kind":"eof","message":`)
				b.t.rec.entry(b.r.resource, "stream_error", append(appendString(m, err.Error()), '}'))
			}
			b.end(reason)
		})
	}
	return n, err
}

func (b *watchBody) Close() error {
	b.once.Do(func() { b.end("closed by the client") })
	return b.ReadCloser.Close()
}

// frames takes every complete frame off the buffer.
func (b *watchBody) frames() {
	rest := b.buf
	for {
		var frame []byte
		if b.format == protobuf {
			if len(rest) < 4 {
				break
			}
			size := int(binary.BigEndian.Uint32(rest))
			if len(rest) < 4+size {
				break
			}
			frame, rest = rest[4:4+size], rest[4+size:]
		} else {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				break
			}
			frame, rest = rest[:i], rest[i+1:]
			if len(bytes.TrimSpace(frame)) == 0 {
				continue
			}
		}
		b.frame(frame)
	}
	b.buf = append(b.buf[:0], rest...)
}

func (b *watchBody) frame(frame []byte) {
	typ, m, st, ok := b.decode(frame)
	if !ok {
		return
	}
	t, res := b.t, b.r.resource
	t.recordFrame(res, typ, m, st)
	switch string(typ) {
	case "ERROR":
		b.failed = true
		t.failed(b.r, st)
	case "BOOKMARK":
		b.rv = append(b.rv[:0], m.rv...)
		t.line("reflector", "bookmark").str("resource", res).bytes("rv", m.rv).flag("initial_events_end", m.initialEventsEnd).send()
		if m.initialEventsEnd {
			t.mu.Lock()
			t.state(res).watchListWaiting = false
			t.mu.Unlock()
		}
	default:
		b.rv = append(b.rv[:0], m.rv...)
		b.events++
		if t.opts.Lean {
			return
		}
		l := t.line("reflector", "watch-event").str("resource", res).bytes("type", typ)
		key(l, m.namespace, m.name).bytes("rv", m.rv).send()
	}
}

// recordFrame writes one watch frame's entry.
func (t *Tap) recordFrame(res string, typ []byte, m objMeta, st status) {
	if t.rec == nil {
		return
	}
	b := []byte(`{"type":`)
	b = appendString(b, string(typ))
	switch string(typ) {
	case "ERROR":
		b = append(b, `,"status":`...)
		b = append(b, apiError(st)...)
	case "BOOKMARK":
		b = append(b, `,"rv":`...)
		b = appendString(b, string(m.rv))
		b = fmt.Appendf(b, `,"initial_events_end":%t`, m.initialEventsEnd)
	default:
		b = append(b, `,"object":`...)
		b = append(b, object(m)...)
	}
	t.rec.entry(res, "frame", append(b, '}'))
}

func (b *watchBody) decode(frame []byte) ([]byte, objMeta, status, bool) {
	if b.format == protobuf {
		return pbEvent(frame)
	}
	var j struct {
		Type   string
		Object struct {
			Metadata struct {
				Name, Namespace, ResourceVersion string
				Annotations                      map[string]string
			}
			Code            int64
			Reason, Message string
		}
	}
	if json.Unmarshal(frame, &j) != nil || j.Type == "" {
		return nil, objMeta{}, status{}, false
	}
	o := j.Object
	m := objMeta{name: []byte(o.Metadata.Name), namespace: []byte(o.Metadata.Namespace), rv: []byte(o.Metadata.ResourceVersion),
		initialEventsEnd: o.Metadata.Annotations[initialEventsEnd] == "true"}
	return []byte(j.Type), m, status{code: o.Code, reason: o.Reason, message: o.Message}, true
}

// end traces the stream's end; it is the next relist's reason unless an ERROR said more.
func (b *watchBody) end(reason string) {
	b.t.line("reflector", "watch-end").str("resource", b.r.resource).bytes("rv", b.rv).
		num("events", b.events).str("reason", reason).send()
	b.t.mu.Lock()
	s := b.t.state(b.r.resource)
	if !b.failed {
		s.lastEnd = "watch " + reason
	}
	b.t.mu.Unlock()
}
