package replay

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"kinformer.dev/oracle/out"
	"kinformer.dev/oracle/record"
)

// The recording as the informer's server, at the transport level: client-go's http.Client
// hands every request — each of rest.Request's silent retries too — to source.RoundTrip, which
// answers it with the resource's next recorded exchange by kinformer replay's rule: released at
// its recorded time and never before the request, a request of the wrong kind is a mismatch
// that ends the replay, options that differ from the recorded ones are a note. Each request is
// one `request` line.

var _ http.RoundTripper = (*source)(nil)

// RoundTrip answers one HTTP request.
func (src *source) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	if w, _ := strconv.ParseBool(q.Get("watch")); w {
		return src.watch(req, q)
	}
	return src.list(req, q)
}

// list answers a LIST request (one page).
func (src *source) list(req *http.Request, q url.Values) (*http.Response, error) {
	limit, _ := strconv.ParseInt(q.Get("limit"), 10, 64)
	rv, cont := q.Get("resourceVersion"), q.Get("continue")
	src.s.log.Emit(out.Fields{"event": "request", "resource": src.resource, "verb": "list",
		"rv": rv, "rvm": q.Get("resourceVersionMatch"), "limit": limit, "continue": cont})
	x := src.next()
	if x == nil {
		return nil, src.s.ctx.Err()
	}
	if x.List == nil {
		return nil, src.mismatched(x.Line, "WATCH", "LIST")
	}
	src.s.consumed(1)
	if asked, recorded := describeList(rv, limit, cont), describeRec(x.List); asked != recorded {
		src.note(x.Line, "LIST asked with "+asked+", recorded with "+recorded+"; answered as recorded")
	}
	if x.Answer == nil || !src.s.sleepUntil(nil, x.Answer.T) {
		<-src.s.ctx.Done()
		return nil, src.s.ctx.Err()
	}
	src.s.consumed(1)
	if f := x.Answer.Value.Error; f != nil {
		return failed(req, f, false)
	}
	body, err := src.kind.listBody(x.Answer.Value.Page)
	if err != nil {
		return nil, err
	}
	return jsonResponse(req, http.StatusOK, body), nil
}

// watch answers a WATCH request: its open failure, or a stream of its recorded items.
func (src *source) watch(req *http.Request, q url.Values) (*http.Response, error) {
	rv := q.Get("resourceVersion")
	initial, _ := strconv.ParseBool(q.Get("sendInitialEvents"))
	bookmarks, _ := strconv.ParseBool(q.Get("allowWatchBookmarks"))
	src.s.log.Emit(out.Fields{"event": "request", "resource": src.resource, "verb": "watch",
		"rv": rv, "rvm": q.Get("resourceVersionMatch"), "send_initial_events": initial, "allow_bookmarks": bookmarks})
	x := src.next()
	if x == nil {
		return nil, src.s.ctx.Err()
	}
	if x.Watch == nil {
		return nil, src.mismatched(x.Line, "LIST", "WATCH")
	}
	src.s.consumed(1)
	if x.Watch.RV != rv || x.Watch.InitialEvents != initial {
		src.note(x.Line, "WATCH asked from resourceVersion "+strconv.Quote(rv)+" (initial events: "+strconv.FormatBool(initial)+
			"), recorded from "+strconv.Quote(x.Watch.RV)+" (initial events: "+strconv.FormatBool(x.Watch.InitialEvents)+"); answered as recorded")
	}
	if x.OpenError != nil {
		if !src.s.sleepUntil(nil, x.OpenError.T) {
			return nil, src.s.ctx.Err()
		}
		src.s.consumed(1)
		return failed(req, &x.OpenError.Value, true)
	}
	pr, pw := io.Pipe()
	body := &streamBody{PipeReader: pr, stop: make(chan struct{})}
	go src.stream(x, pw, body.stop)
	header := http.Header{"Content-Type": {"application/json"}, "Transfer-Encoding": {"chunked"}}
	return response(req, http.StatusOK, header, body, -1), nil
}

// streamBody is a watch's response body; the client closing it stops the stream.
type streamBody struct {
	*io.PipeReader
	stop chan struct{}
	once sync.Once
}

// Close is the client dropping the watch.
func (b *streamBody) Close() error {
	b.once.Do(func() { close(b.stop) })
	return b.PipeReader.Close()
}

// stream writes a recorded watch's items at their times; a watch the recording leaves open
// stays open until the client drops it or the run ends.
func (src *source) stream(x *record.Exchange, w *io.PipeWriter, stop <-chan struct{}) {
	for _, item := range x.Items {
		if !src.s.sleepUntil(stop, item.T) {
			w.Close()
			return
		}
		src.s.consumed(1)
		if !src.write(w, item.Value) {
			return
		}
	}
	select {
	case <-stop:
	case <-src.s.ctx.Done():
	}
	w.Close()
}

// write writes one item; false when the stream ended with it or the client is gone.
func (src *source) write(w *io.PipeWriter, item record.Item) bool {
	switch {
	case item.End:
		w.Close()
		return false
	case item.StreamError != nil:
		streamBreak(w, item.StreamError)
		return false
	}
	line, err := src.kind.eventLine(item.Frame)
	if err != nil {
		streamBreak(w, &record.Failure{Kind: "decode", Message: err.Error()})
		return false
	}
	_, err = w.Write(line)
	return err == nil
}
