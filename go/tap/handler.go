package tap

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// handler is a user's handler wrapped by the tap: each call is traced as a `handler notify`
// line when it starts (with when the object was queued and the handler's backlog) and a
// `handled` line when it returns (queue-to-finish latency and the call's own time).
type handler struct {
	w     *informer
	inner cache.ResourceEventHandler
	name  string
	reg   cache.ResourceEventHandlerRegistration
	// base: the informer's arrivals this handler will never see (before it came, less the
	// cache's contents it gets as adds); done: notifications of queued objects it finished.
	base   int64
	done   atomic.Int64
	synced bool
	stats  *handlerStats
}

// handlerStats are a handler's totals for the summary.
type handlerStats struct {
	mu                                      sync.Mutex
	notifications, adds, updates, deletes   int64
	syncs, handled, maxPending              int64
	latencyTotal, latencyCount, callTotalUs int64
}

func (h *handler) OnAdd(obj any, initial bool) {
	h.call("add", obj, nil, initial, func() { h.inner.OnAdd(obj, initial) })
}

func (h *handler) OnUpdate(old, obj any) {
	h.call("update", obj, old, false, func() { h.inner.OnUpdate(old, obj) })
}

func (h *handler) OnDelete(obj any) {
	h.call("delete", obj, nil, false, func() { h.inner.OnDelete(obj) })
}

// pending is the handler's backlog: the objects queued for it that it has not finished.
func (h *handler) pending() int64 {
	p := h.w.arrivals.Load() - h.base - h.done.Load()
	if p < 0 {
		return 0
	}
	return p
}

func (h *handler) call(kind string, obj, old any, initial bool, run func()) {
	ns, name, rv, tombstone := identify(obj)
	sync := false
	if old != nil {
		_, _, oldRV, _ := identify(old)
		sync = oldRV == rv
	}
	var queued time.Time
	if !sync {
		queued = h.w.queuedAt(obj)
	}
	pending := h.pending()
	if !sync && pending == 0 {
		pending = 1 // this one: queued before the tap counted it
	}
	t, lines := h.w.t, !h.w.t.opts.Lean
	start := time.Now()
	if lines {
		l := t.lineAt("handler", "notify", start).str("resource", h.w.name).str("handler", h.name).str("kind", kind)
		key(l, ns, name).str("rv", rv).flag("initial", initial).flag("sync", sync).num("pending", pending)
		if tombstone {
			l.flag("tombstone", true)
		}
		if !queued.IsZero() {
			l.body = append(l.body, `,"queued":"`...)
			l.body = appendTime(l.body, queued)
			l.body = append(l.body, '"')
			l.num("queue_us", start.Sub(queued).Microseconds())
		}
		l.send()
	}
	run()
	end := time.Now()
	if !sync {
		h.done.Add(1)
	}
	latency := end.Sub(start)
	if !queued.IsZero() {
		latency = end.Sub(queued)
	}
	if lines {
		done := t.lineAt("handler", "handled", end).str("resource", h.w.name).str("handler", h.name).str("kind", kind)
		key(done, ns, name).str("rv", rv).flag("sync", sync).num("pending", h.pending()).
			num("latency_us", latency.Microseconds()).num("call_us", end.Sub(start).Microseconds())
		if !queued.IsZero() {
			done.num("queue_us", start.Sub(queued).Microseconds())
		}
		done.send()
	}
	h.stats.add(kind, sync, pending, latency, end.Sub(start))
}

// identify is obj's namespace, name and resourceVersion, and whether it is a tombstone (whose
// key is split back into namespace and name).
func identify(obj any) (namespace, name, rv string, tombstone bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		_, _, rv, _ = identify(d.Obj)
		namespace, name, found := strings.Cut(d.Key, "/")
		if !found {
			return "", d.Key, rv, true
		}
		return namespace, name, rv, true
	}
	if m, ok := obj.(metav1.Object); ok {
		return m.GetNamespace(), m.GetName(), m.GetResourceVersion(), false
	}
	if m, err := meta.Accessor(obj); err == nil {
		return m.GetNamespace(), m.GetName(), m.GetResourceVersion(), false
	}
	return "", "", "", false
}

func (s *handlerStats) add(kind string, sync bool, pending int64, latency, call time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notifications++
	s.handled++
	switch {
	case sync:
		s.syncs++
	case kind == "add":
		s.adds++
	case kind == "update":
		s.updates++
	default:
		s.deletes++
	}
	if pending > s.maxPending {
		s.maxPending = pending
	}
	s.latencyTotal += latency.Microseconds()
	s.latencyCount++
	s.callTotalUs += call.Microseconds()
}
