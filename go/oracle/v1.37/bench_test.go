//go:build bench

// The sync benchmark's client-go client (benches/sync.rs, docs/benchmark.md; built by
// scripts/bench-client-go into target/oracle/1.37/bench-client-go.test, build tag `bench`):
// client-go 1.37's own pod informer against a kubeconfig, until synced, then optionally until
// it has been notified of -bench-events updates. Two configurations:
//
//   - dynamic: the dynamic informer (dynamicinformer, unstructured objects, JSON), as the
//     oracle's live mode and generic controllers run it;
//   - typed-protobuf: the typed pod informer of a SharedInformerFactory whose clientset asks for
//     application/vnd.kubernetes.protobuf (falling back to JSON when the server answers JSON),
//     as kube-controller-manager runs it.
//
// Its handler counts notifications and nothing else (a controller's handler enqueues a key).
// It reports with the harness's marker lines on stdout: `items N` and `rss_kb N` once synced,
// `ready`, then `done N` after N updates; and, once synced, `content_type T`: the
// Content-Type the server answered the informer's first request with (its LIST, or its
// watch-list's WATCH; tests/binary/typed_protobuf.rs checks that the embedded server answers
// the typed informer in protobuf).
//
//	bench-client-go.test -test.run TestBench -bench-mode dynamic|typed-protobuf \
//	    [-bench-kubeconfig F] [-bench-events N] [-bench-timeout DUR]
package oracle

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

var (
	benchMode       = flag.String("bench-mode", "", "benchmark client: dynamic | typed-protobuf")
	benchKubeconfig = flag.String("bench-kubeconfig", "", "benchmark client: the kubeconfig (default: the usual rules)")
	benchEvents     = flag.Int64("bench-events", 0, "benchmark client: after sync, wait for this many update notifications")
	benchTimeout    = flag.Duration("bench-timeout", 10*time.Minute, "benchmark client: give up after this long")
)

// protobuf is the content type kube-controller-manager's clients send and prefer.
const protobuf = "application/vnd.kubernetes.protobuf"

// TestBench runs the pod informer of -bench-mode and prints the marker lines.
func TestBench(t *testing.T) {
	if *benchMode == "" {
		t.Skip("the benchmark client needs -bench-mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *benchTimeout)
	defer cancel()
	config, err := benchConfig()
	if err != nil {
		t.Fatal(err)
	}
	inf, err := benchInformer(config, *benchMode)
	if err != nil {
		t.Fatal(err)
	}
	counter := &updateCounter{target: *benchEvents, reached: make(chan struct{})}
	if _, err := inf.AddEventHandler(counter); err != nil {
		t.Fatal(err)
	}
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatalf("not synced within %s", *benchTimeout)
	}
	mark("items %d", len(inf.GetStore().ListKeys()))
	mark("content_type %s", firstAnswer.get())
	mark("rss_kb %d", rssKB())
	mark("ready")
	if *benchEvents <= 0 {
		return
	}
	select {
	case <-counter.reached:
		mark("done %d", counter.updates.Load())
	case <-ctx.Done():
		t.Fatalf("%d of %d updates within %s", counter.updates.Load(), *benchEvents, *benchTimeout)
	}
}

// benchConfig loads the kubeconfig without client-side rate limiting (QPS -1), as the oracle's
// live mode does.
func benchConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = *benchKubeconfig
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, err
	}
	config.QPS = -1
	return config, nil
}

// benchInformer builds the pod informer of one configuration.
func benchInformer(config *rest.Config, mode string) (cache.SharedIndexInformer, error) {
	switch mode {
	case "dynamic":
		client, err := dynamic.NewForConfig(config)
		if err != nil {
			return nil, err
		}
		pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
		indexers := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
		return dynamicinformer.NewFilteredDynamicInformer(client, pods, "", 0, indexers, nil).Informer(), nil
	case "typed-protobuf":
		config.Wrap(firstAnswer.wrap)
		config.ContentType = protobuf
		config.AcceptContentTypes = strings.Join([]string{protobuf, "application/json"}, ",")
		client, err := kubernetes.NewForConfig(config)
		if err != nil {
			return nil, err
		}
		return informers.NewSharedInformerFactory(client, 0).Core().V1().Pods().Informer(), nil
	default:
		return nil, fmt.Errorf("-bench-mode %q: want dynamic or typed-protobuf", mode)
	}
}

// firstGet records the Content-Type of the first GET's answer.
type firstGet struct {
	once        sync.Once
	contentType string
	done        atomic.Bool
}

var firstAnswer = &firstGet{}

func (f *firstGet) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err == nil && req.Method == http.MethodGet {
			f.once.Do(func() {
				f.contentType = resp.Header.Get("Content-Type")
				f.done.Store(true)
			})
		}
		return resp, err
	})
}

// get is the recorded Content-Type, "none" before a GET was answered.
func (f *firstGet) get() string {
	if !f.done.Load() {
		return "none"
	}
	return f.contentType
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// updateCounter is the handler: it counts update notifications and closes reached at target.
type updateCounter struct {
	target  int64
	updates atomic.Int64
	reached chan struct{}
}

// OnAdd counts nothing: the initial list is counted from the store.
func (c *updateCounter) OnAdd(any, bool) {}

// OnUpdate counts one update.
func (c *updateCounter) OnUpdate(any, any) {
	if c.updates.Add(1) == c.target {
		close(c.reached)
	}
}

// OnDelete counts nothing.
func (c *updateCounter) OnDelete(any) {}

// mark prints one marker line (stdout is unbuffered in Go).
func mark(format string, args ...any) {
	fmt.Fprintf(os.Stdout, format+"\n", args...)
}

// rssKB is this process's resident set size now, in KiB (0 when unknown).
func rssKB() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb)
			return kb
		}
	}
	return 0
}
