//go:build live

// Package live runs client-go's real SharedIndexInformer against a cluster (a kubeconfig) for
// one resource, with the replay mode's handlers and output, until every handler synced (or for
// -timeout), writing its requests and every handler callback as JSONL, and with -record FILE a
// kinformer record file of its own traffic (record.Writer), which `kinformer replay` and the
// replay mode read. Not reproducible (server timing, scheduling, jitter): for contract checks
// against `kinformer watch` on the same cluster.
//
// A release module calls Test from its TestLive with the Shim of its release.
package live

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"kinformer.dev/oracle/handlers"
	"kinformer.dev/oracle/out"
	"kinformer.dev/oracle/record"
	"kinformer.dev/oracle/replay"
)

var (
	resource   = flag.String("live", "", "live mode: the resource to inform on (pods, deployments.apps, …)")
	kubeconfig = flag.String("kubeconfig", "", "live mode: the kubeconfig (default: the usual rules)")
	kubecontxt = flag.String("context", "", "live mode: the kubeconfig context")
	namespace  = flag.String("namespace", "", "live mode: one namespace (default: all)")
	timeout    = flag.Duration("timeout", 0, "live mode: run this long (0: until every handler synced)")
)

// Test runs the -live resource's informer and writes what it did to -out: its requests, how
// each ended (trace.go), every handler callback and, at the end, its cache.
func Test(t *testing.T, shim replay.Shim) {
	if *resource == "" {
		t.Skip("live mode needs -live RESOURCE")
	}
	replay.SetGates()
	client, gvr, server, err := connect()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := createRecord(server)
	if err != nil {
		t.Fatal(err)
	}
	log := out.New()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if *timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	lw := &source{client: client.Resource(gvr).Namespace(*namespace), resource: *resource, log: log, rec: rec}
	inf := cache.NewSharedIndexInformerWithOptions(lw, &unstructured.Unstructured{}, cache.SharedIndexInformerOptions{
		ResyncPeriod: replay.Resync(),
		Indexers:     cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
	})
	var synced sync.WaitGroup
	for _, spec := range replay.Handlers() {
		reg, err := shim.AddHandler(inf, &handlers.Printer{Spec: spec, Resource: *resource, Log: log}, spec.Resync)
		if err != nil {
			t.Fatal(err)
		}
		synced.Go(func() {
			if shim.Synced(ctx, reg) {
				log.Emit(out.Fields{"event": "handler-synced", "resource": *resource, "handler": spec.Name})
			}
		})
	}
	var running sync.WaitGroup
	running.Go(func() { shim.Run(ctx, inf) })
	synced.Wait()
	if *timeout == 0 {
		cancel()
	} else {
		<-ctx.Done()
	}
	replay.DumpCache(log, *resource, inf.GetStore())
	log.Close()
	running.Wait()
	if rec != nil {
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
	}
	_ = flag.Set("runs", "1") // the header's count of runs
	if err := replay.Write([][]string{log.Lines()}); err != nil {
		t.Fatal(err)
	}
}

// connect builds a dynamic client from the kubeconfig, finds the resource's GVR and reads the
// server's version.
func connect() (*dynamic.DynamicClient, schema.GroupVersionResource, string, error) {
	var none schema.GroupVersionResource
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = *kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: *kubecontxt}
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		return nil, none, "", err
	}
	config.QPS = -1 // kinformer does not model the client-side rate limiter
	disco, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, none, "", err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))
	gvr, err := mapper.ResourceFor(schema.ParseGroupResource(*resource).WithVersion(""))
	if err != nil {
		return nil, none, "", fmt.Errorf("resource %q: %w", *resource, err)
	}
	version, err := disco.ServerVersion()
	if err != nil {
		return nil, none, "", err
	}
	client, err := dynamic.NewForConfig(config)
	return client, gvr, version.GitVersion, err
}

// createRecord opens the -record file, if asked for (the replay mode's flag: in live mode it
// names the file to write). Secrets are refused: the oracle does not
// redact their values as kinformer's recordings do.
func createRecord(server string) (*record.Writer, error) {
	path := replay.RecordPath()
	if path == "" {
		return nil, nil
	}
	if schema.ParseGroupResource(*resource) == (schema.GroupResource{Resource: "secrets"}) {
		return nil, fmt.Errorf("-record: secrets are not recorded (their values would be written as they are)")
	}
	return record.Create(path, replay.Release(), server, []string{*resource})
}

// source is the dynamic client's ListerWatcher, writing each request as the replay mode does.
type source struct {
	client   dynamic.ResourceInterface
	resource string
	log      *out.Log
	// rec writes the traffic to the -record file (nil: not asked for).
	rec *record.Writer
}

// List lists (ListerWatcher, every release).
func (s *source) List(opts metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), opts)
}

// ListWithContext lists (ListerWatcherWithContext, 1.33+).
func (s *source) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	s.log.Emit(out.Fields{"event": "request", "resource": s.resource, "verb": "list", "rv": opts.ResourceVersion,
		"rvm": string(opts.ResourceVersionMatch), "limit": opts.Limit, "continue": opts.Continue})
	if s.rec != nil {
		s.rec.List(s.resource, opts)
	}
	obj, err := s.client.List(ctx, opts)
	if s.rec != nil {
		s.rec.ListAnswer(s.resource, obj, err)
	}
	listEnd(s.log, s.resource, obj, err)
	return obj, err
}

// Watch watches (ListerWatcher, every release).
func (s *source) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), opts)
}

// WatchWithContext watches (ListerWatcherWithContext, 1.33+).
func (s *source) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	s.log.Emit(out.Fields{"event": "request", "resource": s.resource, "verb": "watch", "rv": opts.ResourceVersion,
		"rvm": string(opts.ResourceVersionMatch), "send_initial_events": opts.SendInitialEvents != nil && *opts.SendInitialEvents,
		"allow_bookmarks": opts.AllowWatchBookmarks})
	w, err := s.client.Watch(ctx, opts)
	if s.rec != nil {
		w, err = s.rec.Watch(s.resource, opts, w, err)
	}
	initial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	return track(s.log, s.resource, opts.ResourceVersion, initial, w, err)
}

// IsWatchListSemanticsUnSupported: the dynamic client serves watch-list (1.35+ asks).
func (s *source) IsWatchListSemanticsUnSupported() bool { return false }
