package tap

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/cache"
)

// maxStamps bounds the queue stamps held at once (objects queued and not yet handled by every
// handler); past it objects are not stamped and their notifications carry no queue time.
const maxStamps = 1 << 20

// Informer returns informer with the tap in it, under name — name it by its resource as
// kubectl spells it (`pods`, `deployments.apps`), so its handler lines and its client's
// reflector lines (Config) share one resource. It chains a transform that stamps when each
// object entered the queue, a watch-error handler that traces what the reflector got, and
// watches HasSynced; every handler registered through the returned informer is wrapped to
// trace each notification (queued, started, finished, its backlog) — register your handlers,
// your transform and your watch-error handler through it, before the informer runs. With the
// tap off it returns informer itself.
func Informer(inf cache.SharedIndexInformer, name string) cache.SharedIndexInformer {
	t := Active()
	if t == nil {
		return inf
	}
	w := &informer{SharedIndexInformer: inf, t: t, name: name, quit: make(chan struct{}), stamps: map[any]*stamp{}}
	w.SharedIndexInformer.SetTransform(w.transform)
	w.SharedIndexInformer.SetWatchErrorHandlerWithContext(w.watchError)
	t.mu.Lock()
	t.informers = append(t.informers, w)
	t.mu.Unlock()
	t.line("informer", "started").str("resource", name).str("name", name).str("client_go", t.clientGo).
		str("source", "tap").send()
	go w.watch()
	return w
}

// informer is a SharedIndexInformer with the tap in it.
type informer struct {
	cache.SharedIndexInformer
	t    *Tap
	name string

	mu            sync.Mutex
	userTransform cache.TransformFunc
	onError       cache.WatchErrorHandlerWithContext
	handlers      []*handler

	// arrivals counts objects that entered the queue; stamps holds when, per object.
	arrivals atomic.Int64
	stampsMu sync.Mutex
	stamps   map[any]*stamp // object (pointer) → when it was queued

	synced   bool
	quit     chan struct{}
	stopOnce sync.Once
}

type stamp struct {
	at        time.Time
	remaining int32 // handlers yet to be notified of it
}

// SetTransform chains the user's transform before the tap's stamp.
func (w *informer) SetTransform(f cache.TransformFunc) error {
	w.mu.Lock()
	w.userTransform = f
	w.mu.Unlock()
	return w.SharedIndexInformer.SetTransform(w.transform)
}

// SetWatchErrorHandlerWithContext chains the user's handler after the tap's.
func (w *informer) SetWatchErrorHandlerWithContext(h cache.WatchErrorHandlerWithContext) error {
	w.mu.Lock()
	w.onError = h
	w.mu.Unlock()
	return w.SharedIndexInformer.SetWatchErrorHandlerWithContext(w.watchError)
}

// SetWatchErrorHandler chains the user's handler after the tap's.
func (w *informer) SetWatchErrorHandler(h cache.WatchErrorHandler) error {
	return w.SetWatchErrorHandlerWithContext(func(_ context.Context, r *cache.Reflector, err error) { h(r, err) })
}

// transform runs the user's transform, then stamps the object with the time it entered the
// queue (once: the watch-list path of client-go 1.34+ transforms an initial object twice).
func (w *informer) transform(obj any) (any, error) {
	w.mu.Lock()
	user, n := w.userTransform, len(w.handlers)
	w.mu.Unlock()
	if user != nil {
		var err error
		if obj, err = user(obj); err != nil {
			return obj, err
		}
	}
	if _, ok := obj.(metaObject); !ok {
		w.arrivals.Add(1)
		return obj, nil
	}
	now := time.Now()
	w.stampsMu.Lock()
	if s, again := w.stamps[obj]; again {
		s.at = now
		w.stampsMu.Unlock()
		return obj, nil
	}
	if len(w.stamps) < maxStamps {
		w.stamps[obj] = &stamp{at: now, remaining: int32(n)}
	}
	w.stampsMu.Unlock()
	w.arrivals.Add(1)
	return obj, nil
}

// metaObject is what every API object (a pointer) implements.
type metaObject interface{ GetResourceVersion() string }

// queuedAt is when obj entered the queue (zero when unknown: a resync, a tombstone, an object
// stamped before this handler came); the last handler to ask forgets it.
func (w *informer) queuedAt(obj any) time.Time {
	if _, ok := obj.(metaObject); !ok {
		return time.Time{}
	}
	w.stampsMu.Lock()
	defer w.stampsMu.Unlock()
	s, ok := w.stamps[obj]
	if !ok {
		return time.Time{}
	}
	if s.remaining--; s.remaining <= 0 {
		delete(w.stamps, obj)
	}
	return s.at
}

// watchError traces what the reflector's watch-error handler got, then calls the user's
// handler, or client-go's default.
func (w *informer) watchError(ctx context.Context, r *cache.Reflector, err error) {
	s := statusOf(err)
	l := w.t.line("reflector", "error").str("resource", w.name)
	if s.code != 0 {
		l.num("code", s.code)
	}
	l.str("reason", s.reason).str("message", err.Error()).send()
	w.mu.Lock()
	user := w.onError
	w.mu.Unlock()
	if user != nil {
		user(ctx, r, err)
		return
	}
	cache.DefaultWatchErrorHandler(ctx, r, err)
}

// AddEventHandler registers handler wrapped by the tap.
func (w *informer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return w.add(h, nil, func(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
		return w.SharedIndexInformer.AddEventHandler(h)
	})
}

// AddEventHandlerWithResyncPeriod registers handler wrapped by the tap.
func (w *informer) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, period time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return w.add(h, &period, func(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
		return w.SharedIndexInformer.AddEventHandlerWithResyncPeriod(h, period)
	})
}

// AddEventHandlerWithOptions registers handler wrapped by the tap.
func (w *informer) AddEventHandlerWithOptions(h cache.ResourceEventHandler, o cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return w.add(h, o.ResyncPeriod, func(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
		return w.SharedIndexInformer.AddEventHandlerWithOptions(h, o)
	})
}

// RemoveEventHandler removes a handler registered through the tap.
func (w *informer) RemoveEventHandler(reg cache.ResourceEventHandlerRegistration) error {
	w.mu.Lock()
	var name string
	for i, h := range w.handlers {
		if h.reg == reg {
			name = h.name
			w.handlers = append(w.handlers[:i], w.handlers[i+1:]...)
			break
		}
	}
	w.mu.Unlock()
	err := w.SharedIndexInformer.RemoveEventHandler(reg)
	if name != "" {
		w.t.line("informer", "handler-removed").str("resource", w.name).str("handler", name).send()
	}
	return err
}

func (w *informer) add(inner cache.ResourceEventHandler, period *time.Duration,
	register func(cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error)) (cache.ResourceEventHandlerRegistration, error) {
	w.mu.Lock()
	h := &handler{w: w, inner: inner, name: handlerName(inner, len(w.handlers)+1), stats: &handlerStats{}}
	started := w.SharedIndexInformer.HasSynced() || len(w.SharedIndexInformer.GetStore().ListKeys()) > 0
	// a handler added late gets the cache's contents as adds first: they are its backlog too
	h.base = w.arrivals.Load() - int64(len(w.SharedIndexInformer.GetStore().ListKeys()))
	w.handlers = append(w.handlers, h)
	w.mu.Unlock()
	reg, err := register(h)
	if err != nil {
		w.mu.Lock()
		w.handlers = w.handlers[:len(w.handlers)-1]
		w.mu.Unlock()
		return reg, err
	}
	w.mu.Lock()
	h.reg = reg
	w.mu.Unlock()
	l := w.t.line("informer", "handler-added").str("resource", w.name).str("handler", h.name).flag("after_start", started)
	if period != nil {
		l.num("requested_resync_ms", period.Milliseconds())
	}
	l.send()
	return reg, nil
}

// Named gives a handler the name the tap shows for it (by default `handler-N`, N counting the
// informer's registrations, or what a handler's TapName method returns).
func Named(name string, h cache.ResourceEventHandler) cache.ResourceEventHandler {
	return named{ResourceEventHandler: h, name: name}
}

type named struct {
	cache.ResourceEventHandler
	name string
}

func (n named) TapName() string { return n.name }

func handlerName(h cache.ResourceEventHandler, n int) string {
	if t, ok := h.(interface{ TapName() string }); ok {
		return t.TapName()
	}
	return fmt.Sprintf("handler-%d", n)
}

// handlerList is the handlers registered so far.
func (w *informer) handlerList() []*handler {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*handler(nil), w.handlers...)
}

func (w *informer) stop() { w.stopOnce.Do(func() { close(w.quit) }) }
