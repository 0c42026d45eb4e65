//go:build live

// How each of the live informer's requests ended, as kinformer's reflector lifecycle lines say
// it (list-done, list-error, watch-error, watch-end; the cache at the end: replay.DumpCache): what
// tests/binary/oracle_side_by_side.rs compares with `kinformer watch` under chaos. A LIST or
// WATCH failure is what client-go's REST layer handed the reflector after its own silent
// retries; a watch's end carries the last resourceVersion the stream delivered.
package live

import (
	"errors"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"kinformer.dev/oracle/out"
)

// failure describes err: its HTTP code when it is a Status, and its message.
func failure(err error) out.Fields {
	f := out.Fields{"message": err.Error()}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		f["code"] = status.Status().Code
		f["reason"] = string(status.Status().Reason)
	}
	return f
}

// listEnd writes a LIST page's outcome: list-error, or list-done with the list's
// resourceVersion and whether a continue token follows.
func listEnd(log *out.Log, resource string, obj runtime.Object, err error) {
	if err != nil {
		f := failure(err)
		f["event"], f["resource"] = "list-error", resource
		log.Emit(f)
		return
	}
	f := out.Fields{"event": "list-done", "resource": resource}
	if l, lerr := meta.ListAccessor(obj); lerr == nil {
		f["rv"], f["continue"] = l.GetResourceVersion(), l.GetContinue() != ""
	}
	log.Emit(f)
}

// tracked forwards a watch's events and writes how the stream ended: a watch-error for an
// ERROR event, a watch-end (with the resourceVersion the reflector resumes from and the count
// of events, bookmarks included, as client-go's handleWatch counts them: for a watch-list, those
// after its initial-events-end bookmark, which an initial-events-end line marks) when the channel
// closes. That resourceVersion is the last one delivered, except in a watch-list's initial
// phase: until its initial-events-end bookmark the events go to a temporary store and the
// reflector's resourceVersion stays the one it asked from (reflector.go v0.37.2:846-847,
// :870-875, :887-904); `initial` says the stream ended in that phase.
type tracked struct {
	inner    watch.Interface
	events   chan watch.Event
	stopped  chan struct{}
	stopOnce sync.Once
}

// track wraps a successful WATCH (a failed one writes watch-error and is returned as it is);
// initial: a watch-list (sendInitialEvents).
func track(log *out.Log, resource, rv string, initial bool, w watch.Interface, err error) (watch.Interface, error) {
	if err != nil {
		f := failure(err)
		f["event"], f["resource"], f["phase"] = "watch-error", resource, "open"
		log.Emit(f)
		return w, err
	}
	t := &tracked{inner: w, events: make(chan watch.Event), stopped: make(chan struct{})}
	go t.forward(log, resource, rv, initial)
	return t, nil
}

func (t *tracked) forward(log *out.Log, resource, rv string, initial bool) {
	defer close(t.events)
	events, failed := 0, false
	for ev := range t.inner.ResultChan() {
		if ev.Type == watch.Error {
			f := failure(apierrors.FromObject(ev.Object))
			f["event"], f["resource"], f["phase"] = "watch-error", resource, "stream"
			log.Emit(f)
			failed = true // the reflector ends the watch on it: no end of the server's
		} else if m, err := meta.Accessor(ev.Object); err == nil {
			if !initial {
				rv = m.GetResourceVersion()
			} else if ev.Type == watch.Bookmark && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
				// The initial events end: watchList returns, and the reflector's watch loop
				// takes its very-short-watch start and counts the stream's events from here
				// (reflector.go v0.37.2:583, :1090-1091).
				initial, rv = false, m.GetResourceVersion()
				log.Emit(out.Fields{"event": "initial-events-end", "resource": resource, "rv": rv})
				events = -1 // the bookmark itself is not counted
			}
			events++
		}
		select {
		case t.events <- ev:
		case <-t.stopped:
			return
		}
	}
	select {
	case <-t.stopped: // the reflector stopped it: no end of the server's
	default:
		if failed {
			return
		}
		log.Emit(out.Fields{"event": "watch-end", "resource": resource, "rv": rv, "events": events, "initial": initial})
	}
}

// Stop stops the inner watch.
func (t *tracked) Stop() {
	t.stopOnce.Do(func() { close(t.stopped) })
	t.inner.Stop()
}

// ResultChan is the forwarded events.
func (t *tracked) ResultChan() <-chan watch.Event { return t.events }
