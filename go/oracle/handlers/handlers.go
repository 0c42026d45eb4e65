// Package handlers parses kinformer's handler spellings (NAME[:resync=DUR][:delay=DUR]
// [:panic-every=N]) and builds client-go event handlers that write one JSONL line per callback.
package handlers

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"kinformer.dev/oracle/out"
)

// Spec is one --handler.
type Spec struct {
	Name       string
	Resync     *time.Duration
	Delay      time.Duration
	PanicEvery uint64
}

// Parse reads NAME[:resync=DUR][:delay=DUR][:panic-every=N].
func Parse(text string) (Spec, error) {
	parts := strings.Split(text, ":")
	s := Spec{Name: parts[0]}
	if s.Name == "" {
		return s, fmt.Errorf("handler %q has no name", text)
	}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, "=")
		var err error
		switch k {
		case "resync":
			var d time.Duration
			d, err = time.ParseDuration(v)
			s.Resync = &d
		case "delay":
			s.Delay, err = time.ParseDuration(v)
		case "panic-every":
			s.PanicEvery, err = strconv.ParseUint(v, 10, 64)
		default:
			err = fmt.Errorf("unknown option %q", p)
		}
		if err != nil {
			return s, fmt.Errorf("handler %q: %w", text, err)
		}
	}
	return s, nil
}

// Printer is a handler that writes every callback to a log.
type Printer struct {
	Spec     Spec
	Resource string
	Log      *out.Log
	calls    atomic.Uint64
}

var _ cache.ResourceEventHandler = (*Printer)(nil)

// OnAdd is client-go's add callback.
func (p *Printer) OnAdd(obj any, isInInitialList bool) {
	p.call(out.Fields{"kind": "add", "initial": isInInitialList}, nil, obj)
}

// OnUpdate is client-go's update callback; sync is client-go's own test (equal RVs).
func (p *Printer) OnUpdate(oldObj, newObj any) {
	oldRV := rv(oldObj)
	p.call(out.Fields{"kind": "update", "old_rv": oldRV, "sync": oldRV == rv(newObj)}, nil, newObj)
}

// OnDelete is client-go's delete callback; a DeletedFinalStateUnknown is a tombstone.
func (p *Printer) OnDelete(obj any) {
	f := out.Fields{"kind": "delete"}
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		f["tombstone"] = true
		f["key"] = tomb.Key
		if tomb.Obj != nil {
			f["rv"] = rv(tomb.Obj)
		}
		p.call(f, &tomb, nil)
		return
	}
	p.call(f, nil, obj)
}

func (p *Printer) call(f out.Fields, tomb *cache.DeletedFinalStateUnknown, obj any) {
	n := p.calls.Add(1)
	f["event"] = "notify"
	f["handler"] = p.Spec.Name
	f["resource"] = p.Resource
	f["n"] = n
	if _, ok := f["initial"]; !ok {
		f["initial"] = false
	}
	if _, ok := f["sync"]; !ok {
		f["sync"] = false
	}
	if _, ok := f["tombstone"]; !ok {
		f["tombstone"] = false
	}
	if tomb == nil {
		key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		f["key"] = key
		f["rv"] = rv(obj)
	}
	p.Log.Emit(f)
	if p.Spec.PanicEvery > 0 && n%p.Spec.PanicEvery == 0 {
		panic(fmt.Sprintf("simulated handler panic on notification %d", n))
	}
	if p.Spec.Delay > 0 {
		time.Sleep(p.Spec.Delay)
	}
}

func rv(obj any) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetResourceVersion()
}
