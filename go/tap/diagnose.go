package tap

import (
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// poll is how often an informer's and its handlers' HasSynced are asked.
const poll = 100 * time.Millisecond

// watch follows one informer until the tap closes: when it and each registration synced, an
// informer that has not synced NotSyncedAfter after it was tapped (and why), a handler whose
// backlog grew over three windows in a row.
func (w *informer) watch() {
	o := w.t.opts
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	tapped := time.Now()
	diagnosed := false
	backlog := map[*handler]*growth{}
	nextWindow := tapped.Add(o.BacklogWindow)
	for {
		select {
		case <-w.quit:
			return
		case now := <-ticker.C:
			w.checkSynced()
			if !w.synced && !diagnosed && now.Sub(tapped) >= o.NotSyncedAfter {
				diagnosed = true
				w.notSynced(now.Sub(tapped))
			}
			if now.After(nextWindow) {
				nextWindow = now.Add(o.BacklogWindow)
				w.checkBacklogs(backlog)
			}
		}
	}
}

func (w *informer) checkSynced() {
	if !w.synced && w.SharedIndexInformer.HasSynced() {
		w.synced = true
		w.t.line("informer", "synced").str("resource", w.name).
			num("objects", int64(len(w.SharedIndexInformer.GetStore().ListKeys()))).
			str("store_rv", w.SharedIndexInformer.LastSyncResourceVersion()).send()
	}
	for _, h := range w.handlerList() {
		w.mu.Lock()
		reg := h.reg // set by add once client-go registered the handler
		w.mu.Unlock()
		if !h.synced && reg != nil && reg.HasSynced() {
			h.synced = true
			w.t.line("informer", "handler-synced").str("resource", w.name).str("handler", h.name).send()
		}
	}
}

// notSynced writes the diagnosis of an informer still not synced: the request that keeps
// failing, or the watch-list still waiting for its bookmark, or that nothing was asked.
func (w *informer) notSynced(after time.Duration) {
	t := w.t
	t.mu.Lock()
	s := t.resources[w.name]
	var f *failure
	var waiting time.Duration
	lists := 0
	if s != nil {
		f, lists = s.failure, s.lists
		if s.watchListWaiting {
			waiting = time.Since(s.watchListSince)
		}
	}
	t.mu.Unlock()
	l := t.line("diagnosis", "not-synced").str("resource", w.name).num("after_ms", after.Milliseconds())
	switch {
	case f != nil:
		l.str("cause", failureCause(f)).num("code", f.code).str("reason", f.reason).
			str("verb", f.verb()).optStr("namespace", f.namespace).str("message", f.message)
	case waiting > 0:
		l.str("cause", fmt.Sprintf("a watch-list (sendInitialEvents=true) open for %s without its %s bookmark: the server never ended its initial events",
			waiting.Round(time.Millisecond), initialEventsEnd)).str("reason", "WatchListNoBookmark")
	case lists == 0:
		l.str("cause", fmt.Sprintf("no LIST or WATCH of %s was seen: the informer has not run, or its client's config is not tap.Config's", w.name)).
			str("reason", "NoRequest")
	default:
		l.str("cause", "the initial list is still being processed").str("reason", "Listing")
	}
	l.send()
}

// failureCause says in words what a failed request means for the informer.
func failureCause(f *failure) string {
	scope := "cluster-wide"
	if f.namespace != "" {
		scope = "in namespace " + f.namespace
	}
	switch f.code {
	case 403:
		return fmt.Sprintf("403 Forbidden: the RBAC rules lack verb %q on resource %q %s (%s)", f.verb(), f.resource, scope, f.message)
	case 404:
		return fmt.Sprintf("404 NotFound: the server has no resource %q (is its CRD installed, or the API group served?)", f.resource)
	case 401:
		return "401 Unauthorized: the server does not accept the client's credentials"
	}
	if f.code == 0 {
		return fmt.Sprintf("%s %s failed: %s", f.verb(), f.resource, f.message)
	}
	return fmt.Sprintf("%d %s: %s", f.code, f.reason, f.message)
}

// growth is one handler's backlog over the last windows.
type growth struct {
	pending, arrivals, done int64
	at                      time.Time
	streak                  int
	reported                bool
}

// checkBacklogs diagnoses a handler whose backlog grew over three windows in a row: how fast
// notifications come and go, and how long the backlog would take to drain with no more.
func (w *informer) checkBacklogs(all map[*handler]*growth) {
	arrivals, now := w.arrivals.Load(), time.Now()
	for _, h := range w.handlerList() {
		g := all[h]
		p, done := h.pending(), h.done.Load()
		if g == nil {
			all[h] = &growth{pending: p, arrivals: arrivals, done: done, at: now}
			continue
		}
		window := now.Sub(g.at).Seconds()
		in := float64(arrivals-g.arrivals) / window
		out := float64(done-g.done) / window
		if p > g.pending {
			g.streak++
		} else {
			g.streak, g.reported = 0, false
		}
		g.pending, g.arrivals, g.done, g.at = p, arrivals, done, now
		if g.streak < 3 || g.reported {
			continue
		}
		g.reported = true
		l := w.t.line("diagnosis", "backlog-growing").str("resource", w.name).str("handler", h.name).
			num("pending", p).float("rate_in_per_s", in).float("rate_out_per_s", out)
		if out > 0 {
			l.float("drain_s", float64(p)/out)
		}
		l.str("cause", backlogCause(h.name, p, in, out)).send()
	}
}

func backlogCause(name string, pending int64, in, out float64) string {
	if out == 0 {
		return fmt.Sprintf("handler %s has %d notifications pending and finished none in the last window", name, pending)
	}
	return fmt.Sprintf("handler %s falls behind: %.1f/s in, %.1f/s out, %d pending (%.1fs to drain with no more coming)",
		name, in, out, pending, float64(pending)/out)
}

// statusOf is an error's HTTP code and Status reason, when it carries a Status.
func statusOf(err error) status {
	var api apierrors.APIStatus
	if errors.As(err, &api) {
		st := api.Status()
		return status{code: int64(st.Code), reason: string(st.Reason), message: st.Message}
	}
	return status{reason: "Transport", message: err.Error()}
}

// handlerSummaries is the summary's `handlers`: one entry per informer × handler.
func (t *Tap) handlerSummaries(informers []*informer) []byte {
	b := []byte{'['}
	first := true
	for _, w := range informers {
		for _, h := range w.handlerList() {
			if !first {
				b = append(b, ',')
			}
			first = false
			s := h.stats
			s.mu.Lock()
			mean, call := int64(0), int64(0)
			if s.latencyCount > 0 {
				mean, call = s.latencyTotal/s.latencyCount, s.callTotalUs/s.latencyCount
			}
			l := &line{}
			l.str("name", h.name).str("resource", w.name).num("notifications", s.notifications).
				num("adds", s.adds).num("updates", s.updates).num("deletes", s.deletes).num("syncs", s.syncs).
				num("handled", s.handled).num("max_pending", s.maxPending).num("pending", h.pending()).
				num("mean_latency_us", mean).num("mean_call_us", call)
			s.mu.Unlock()
			b = append(b, '{')
			b = append(b, l.body[1:]...)
			b = append(b, '}')
		}
	}
	return append(b, ']')
}
