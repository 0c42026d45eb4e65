package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kinformer.dev/oracle/record"
)

// What a recorded value was on the wire: the bytes of a LIST's answer and of each watch event
// (JSON, one event per line as kube-apiserver writes them), a failed request's status line,
// Retry-After header and Status body, and the transport errors net/http hands client-go for a
// refused, reset or timed-out connection. client-go's rest.Request, decoders, framer and
// StreamWatcher read them and classify each failure themselves.

// typeMeta is a resource's kind and apiVersion: a LIST's is the items' kind + "List"; a
// recording written by hand may leave an object's out, a server never does.
type typeMeta struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
}

// metadataMeta is every object's type for a metadata client.
var metadataMeta = typeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"}

// resourceType is the first kind the resource's recorded objects name (a metadata client's
// objects are PartialObjectMetadata); "" when none does.
func resourceType(xs []*record.Exchange) typeMeta {
	if *metadataOnly {
		return metadataMeta
	}
	for _, x := range xs {
		var raws []json.RawMessage
		if x.Answer != nil && x.Answer.Value.Page != nil {
			raws = x.Answer.Value.Page.Items
		}
		for _, item := range x.Items {
			if f := item.Value.Frame; f != nil && f.Object != nil {
				raws = append(raws, f.Object)
			}
		}
		for _, raw := range raws {
			var tm typeMeta
			if json.Unmarshal(raw, &tm) == nil && tm.Kind != "" {
				return tm
			}
		}
	}
	return typeMeta{}
}

// withType is raw with the resource's kind and apiVersion where it names none.
func (tm typeMeta) withType(raw json.RawMessage) json.RawMessage {
	var has typeMeta
	if tm.Kind == "" || json.Unmarshal(raw, &has) != nil || has.Kind != "" {
		return raw
	}
	var obj map[string]any
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	obj["kind"], obj["apiVersion"] = tm.Kind, tm.APIVersion
	b, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return b
}

// listBody is a recorded page as the server wrote it.
func (tm typeMeta) listBody(p *record.Page) ([]byte, error) {
	type listMeta struct {
		ResourceVersion string `json:"resourceVersion,omitempty"`
		Continue        string `json:"continue,omitempty"`
	}
	kind, version := "List", "v1"
	if tm.Kind != "" {
		kind, version = tm.Kind+"List", tm.APIVersion
	}
	items := p.Items
	if items == nil {
		items = []json.RawMessage{}
	}
	return json.Marshal(struct {
		typeMeta
		Metadata listMeta          `json:"metadata"`
		Items    []json.RawMessage `json:"items"`
	}{typeMeta{kind, version}, listMeta{p.RV, derefStr(p.Continue)}, items})
}

// eventLine is a recorded frame as one line of a JSON watch stream.
func (tm typeMeta) eventLine(f *record.Frame) ([]byte, error) {
	var obj any
	switch f.Type {
	case "BOOKMARK":
		obj = tm.bookmarkObject(f)
	case "ERROR":
		if f.Status != nil {
			obj = status(f.Status)
		}
	default:
		obj = tm.withType(f.Object)
	}
	b, err := json.Marshal(struct {
		Type   string `json:"type"`
		Object any    `json:"object"`
	}{f.Type, obj})
	return append(b, '\n'), err
}

// bookmarkObject is a BOOKMARK's object: only a resourceVersion and maybe the
// initial-events-end annotation.
func (tm typeMeta) bookmarkObject(f *record.Frame) any {
	meta := map[string]any{"resourceVersion": f.RV}
	if f.InitialEventsEnd {
		meta["annotations"] = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	kind := tm
	if kind.Kind == "" {
		kind = typeMeta{"Object", "v1"}
	}
	return map[string]any{"kind": kind.Kind, "apiVersion": kind.APIVersion, "metadata": meta}
}

// status is a recorded API failure as the server's Status.
func status(f *record.Failure) *metav1.Status {
	s := &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Code:     f.Code,
		Reason:   metav1.StatusReason(f.Reason),
		Message:  f.Message,
	}
	if f.RetryAfterMs != nil || f.TooLargeRV {
		s.Details = &metav1.StatusDetails{}
	}
	if f.RetryAfterMs != nil {
		s.Details.RetryAfterSeconds = retryAfterSeconds(*f.RetryAfterMs)
	}
	if f.TooLargeRV {
		s.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge}}
	}
	return s
}

// retryAfterSeconds is a recorded Retry-After as the header's whole seconds.
func retryAfterSeconds(ms int64) int32 { return int32((ms + 999) / 1000) }

// response is an HTTP response to req.
func response(req *http.Request, code int, header http.Header, body io.ReadCloser, length int64) *http.Response {
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", code, http.StatusText(code)),
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          body,
		ContentLength: length,
		Request:       req,
	}
}

// jsonResponse is a complete JSON answer.
func jsonResponse(req *http.Request, code int, body []byte) *http.Response {
	header := http.Header{"Content-Type": {"application/json"}}
	return response(req, code, header, io.NopCloser(bytes.NewReader(body)), int64(len(body)))
}

// timeoutError is a net.Error that timed out, as a read or dial deadline gives.
type timeoutError struct{ msg string }

func (e timeoutError) Error() string   { return e.msg }
func (e timeoutError) Timeout() bool   { return true }
func (e timeoutError) Temporary() bool { return true }

// malformed is an event line no JSON decoder reads.
const malformed = "{\"type\":\"MODIFIED\",\"object\":}\n"

// failed is how a recorded request failure reached the client: an API failure as its status
// line, Retry-After and Status body; a LIST whose body did not decode as a 200 with malformed
// JSON; a refused dial, a connection ended before the answer, a timeout as net/http's errors.
func failed(req *http.Request, f *record.Failure, watching bool) (*http.Response, error) {
	switch f.Kind {
	case "api":
		body, err := json.Marshal(status(f))
		if err != nil {
			return nil, err
		}
		resp := jsonResponse(req, int(f.Code), body)
		if f.RetryAfterMs != nil {
			resp.Header.Set("Retry-After", strconv.Itoa(int(retryAfterSeconds(*f.RetryAfterMs))))
		}
		return resp, nil
	case "decode":
		if !watching {
			return jsonResponse(req, http.StatusOK, []byte(malformed)), nil
		}
	case "refused":
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	case "eof":
		return nil, io.EOF
	case "timeout":
		return nil, timeoutError{f.Message}
	}
	return nil, errors.New(f.Message)
}

// streamBreak is how a recorded stream failure reached the watch's body reader: a cut
// (net/http's unexpected EOF of a chunked body), a read timeout, malformed bytes (what came
// before them is a whole event), or another transport error.
func streamBreak(w *io.PipeWriter, f *record.Failure) {
	switch f.Kind {
	case "eof":
		w.CloseWithError(io.ErrUnexpectedEOF)
	case "timeout":
		w.CloseWithError(timeoutError{f.Message})
	case "decode":
		if _, err := w.Write([]byte(malformed)); err == nil {
			w.Close()
		}
	default:
		w.CloseWithError(errors.New(f.Message))
	}
}
