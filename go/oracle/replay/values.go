package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"kinformer.dev/oracle/record"
)

// object turns a recorded raw object into what a dynamic client decodes, or with
// -metadata-only what a metadata client decodes (a PartialObjectMetadata).
func object(raw json.RawMessage) (runtime.Object, error) {
	if *metadataOnly {
		m := &metav1.PartialObjectMetadata{}
		return m, json.Unmarshal(raw, m)
	}
	u := &unstructured.Unstructured{}
	return u, json.Unmarshal(raw, &u.Object)
}

// list turns a recorded page into a LIST answer (a PartialObjectMetadataList with
// -metadata-only).
func list(p *record.Page) (runtime.Object, error) {
	if *metadataOnly {
		return metaList(p)
	}
	l := &unstructured.UnstructuredList{Object: map[string]any{}}
	l.SetResourceVersion(p.RV)
	if p.Continue != nil {
		l.SetContinue(*p.Continue)
	}
	for _, raw := range p.Items {
		u := unstructured.Unstructured{}
		if err := json.Unmarshal(raw, &u.Object); err != nil {
			return nil, err
		}
		l.Items = append(l.Items, u)
	}
	return l, nil
}

func metaList(p *record.Page) (*metav1.PartialObjectMetadataList, error) {
	l := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: p.RV}}
	if p.Continue != nil {
		l.Continue = *p.Continue
	}
	for _, raw := range p.Items {
		m := metav1.PartialObjectMetadata{}
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		l.Items = append(l.Items, m)
	}
	return l, nil
}

// bookmarkObject is a BOOKMARK's object: only a resourceVersion and maybe the
// initial-events-end annotation.
func bookmarkObject(f *record.Frame) runtime.Object {
	var annotations map[string]string
	if f.InitialEventsEnd {
		annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	if *metadataOnly {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{ResourceVersion: f.RV, Annotations: annotations}}
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetResourceVersion(f.RV)
	if annotations != nil {
		u.SetAnnotations(annotations)
	}
	return u
}

// status is a recorded API failure as the server's Status.
func status(f *record.Failure) *metav1.Status {
	s := &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    f.Code,
		Reason:  metav1.StatusReason(f.Reason),
		Message: f.Message,
	}
	if f.RetryAfterMs != nil || f.TooLargeRV {
		s.Details = &metav1.StatusDetails{}
	}
	if f.RetryAfterMs != nil {
		s.Details.RetryAfterSeconds = int32((*f.RetryAfterMs + 999) / 1000)
	}
	if f.TooLargeRV {
		s.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge}}
	}
	return s
}

// timeoutError is a net.Error that timed out.
type timeoutError struct{ msg string }

func (e timeoutError) Error() string   { return e.msg }
func (e timeoutError) Timeout() bool   { return true }
func (e timeoutError) Temporary() bool { return true }

// callError is a recorded request failure as the REST client would return it.
func callError(f *record.Failure) error {
	switch f.Kind {
	case "api":
		return apierrors.FromObject(status(f))
	case "refused":
		dial := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
		return &url.Error{Op: "Get", URL: "https://replay", Err: dial}
	case "eof":
		return io.ErrUnexpectedEOF
	case "timeout":
		return timeoutError{f.Message}
	default:
		return errors.New(f.Message)
	}
}

// frameEvent turns a recorded frame into a watch event.
func frameEvent(f *record.Frame) (watch.Event, error) {
	switch f.Type {
	case "ADDED", "MODIFIED", "DELETED":
		u, err := object(f.Object)
		return watch.Event{Type: watch.EventType(f.Type), Object: u}, err
	case "BOOKMARK":
		return watch.Event{Type: watch.Bookmark, Object: bookmarkObject(f)}, nil
	case "ERROR":
		if f.Status == nil {
			return watch.Event{}, fmt.Errorf("an ERROR frame without a status")
		}
		return watch.Event{Type: watch.Error, Object: status(f.Status)}, nil
	}
	return watch.Event{}, fmt.Errorf("unknown frame type %q", f.Type)
}

// streamFailure is what StreamWatcher does with a broken stream: nothing for an EOF or a
// timeout (the channel just closes), else an Error event before closing.
func streamFailure(f *record.Failure) *watch.Event {
	if f.Kind == "eof" || f.Kind == "timeout" {
		return nil
	}
	err := fmt.Errorf("unable to decode an event from the watch stream: %s", f.Message)
	return &watch.Event{Type: watch.Error, Object: &apierrors.NewInternalError(err).ErrStatus}
}
