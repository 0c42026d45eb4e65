// Package replay runs client-go's real SharedIndexInformer against a kinformer record file
// inside a testing/synctest bubble, so that every client-go clock is virtual. The informer's
// ListerWatcher is client-go's own dynamic (or metadata) client; the recording answers its HTTP
// requests at the transport level (transport.go) by kinformer replay's rule (exchanges in order,
// released at their recorded times and never before the request, a request of the wrong kind is
// a mismatch that ends the replay), so client-go's REST layer, decoders and StreamWatcher run on
// the recorded bytes. Goroutines woken at the same virtual instant run in no fixed order, so the
// replay runs several times and writes each distinct run once.
//
// A release module calls Test from its TestReplay with a Shim for that release's API.
package replay

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"

	"kinformer.dev/oracle/handlers"
	"kinformer.dev/oracle/out"
	"kinformer.dev/oracle/record"
)

// Shim is what differs between client-go releases' APIs.
type Shim interface {
	// AddHandler registers h, with its own resync period when resync is set.
	AddHandler(inf cache.SharedIndexInformer, h cache.ResourceEventHandler, resync *time.Duration) (cache.ResourceEventHandlerRegistration, error)
	// Run runs the informer until ctx is done.
	Run(ctx context.Context, inf cache.SharedIndexInformer)
	// Synced blocks until reg has synced (true) or ctx is done (false).
	Synced(ctx context.Context, reg cache.ResourceEventHandlerRegistration) bool
}

// settle is how long kinformer replay lets the pipeline settle after a finished recording
// (src/cli/replaying.rs SETTLE) before it stops.
const settle = 100 * time.Millisecond

// drain is longer than any Retry-After client-go may still be sleeping out after the run.
const drain = time.Hour

// stall is kinformer replay's STALL: past the recording's end, a replay that asked for nothing
// more during this long is finished with entries left over.
const stall = 5 * time.Second

var (
	recordPath   = flag.String("record", "", "the kinformer record file to replay (plain or zstd); live mode: the one to write (.zst: compressed)")
	stream       = flag.String("stream", "", "a proxy recording's stream (CLIENT/RESOURCE) to replay")
	resync       = flag.Duration("resync", 0, "the informer's default resync period (0 = never)")
	runs         = flag.Int("runs", 5, "how many times to replay; each distinct run is written once")
	outPath      = flag.String("out", "", "where to write the JSONL (default stdout)")
	seed         = flag.Int64("seed", 1, "math/rand seed (jitter, watch timeouts)")
	watchList    = flag.String("watch-list", "", "true|false: set the WatchListClient gate (default: the release's)")
	transform    = flag.String("transform", "", "strip-managed-fields: the informer's SetTransform (kinformer's --transform)")
	metadataOnly = flag.Bool("metadata-only", false, "a metadata informer: PartialObjectMetadata objects (kinformer's --metadata-only)")
	onPanic      = flag.String("on-panic", "crash", "crash (a handler panic ends the replay) or skip (client-go with ReallyCrash off)")
	specs        []handlers.Spec
)

func init() {
	flag.Func("handler", "NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)", func(s string) error {
		spec, err := handlers.Parse(s)
		specs = append(specs, spec)
		return err
	})
}

// current is the running session, for the panic handler (runs are sequential).
var current struct {
	sync.Mutex
	s *session
}

// Test replays the -record file -runs times and writes the distinct runs.
func Test(t *testing.T, shim Shim) {
	if *recordPath == "" {
		t.Skip("replay mode needs -record FILE")
	}
	SetGates()
	file, err := record.Load(*recordPath, *stream)
	if err != nil {
		t.Fatal(err)
	}
	hs := Handlers()
	utilruntime.ReallyCrash = false
	// Keep only the log handler: apimachinery's error rate limiter (1 ms between errors) is made
	// at package init with the real time.Now() (util/runtime/runtime.go v0.36.6:152-158, :258;
	// since 1.34), 26 years after a bubble's clock, so the first HandleError in a bubble would
	// sleep that long and stall the reflector's loop forever.
	utilruntime.ErrorHandlers = utilruntime.ErrorHandlers[:1]
	utilruntime.PanicHandlers = append(utilruntime.PanicHandlers, onHandlerPanic)
	var distinct [][]string
	seen := map[string]bool{}
	for range *runs {
		rand.Seed(*seed)
		var lines []string
		synctest.Test(t, func(*testing.T) { lines = runOnce(shim, file, hs) })
		if k := strings.Join(lines, "\n"); !seen[k] {
			seen[k] = true
			distinct = append(distinct, lines)
		}
	}
	if err := Write(distinct); err != nil {
		t.Fatal(err)
	}
}

// SetGates sets the gates the flags ask for (-watch-list), before client-go reads them.
func SetGates() {
	if *watchList != "" {
		os.Setenv("KUBE_FEATURE_WatchListClient", *watchList)
	}
}

// Handlers are the -handler flags, or one `default` handler.
func Handlers() []handlers.Spec {
	if len(specs) == 0 {
		return []handlers.Spec{{Name: "default"}}
	}
	return specs
}

// Resync is the -resync flag: the informer's default resync period.
func Resync() time.Duration { return *resync }

// onHandlerPanic: with -on-panic crash a handler's panic ends the replay (kinformer exits 6).
func onHandlerPanic(_ context.Context, r any) {
	current.Lock()
	s := current.s
	current.Unlock()
	if s == nil {
		return
	}
	s.log.Emit(out.Fields{"event": "panic", "message": fmt.Sprint(r)})
	if *onPanic == "crash" {
		s.end("panic")
	}
}

// runOnce replays the file once, inside the bubble.
func runOnce(shim Shim, file *record.File, hs []handlers.Spec) []string {
	ctx, cancel := context.WithCancel(context.Background())
	log := out.New()
	s := newSession(ctx, log, file.Entries)
	current.Lock()
	current.s = s
	current.Unlock()
	var wg sync.WaitGroup
	var stores []resourceStore
	for _, r := range file.Header.Streams {
		src := &source{resource: r, s: s, queue: file.Exchanges[r], kind: resourceType(file.Exchanges[r])}
		lw, err := newListerWatcher(ctx, r, src)
		if err != nil {
			log.Emit(out.Fields{"event": "error", "message": err.Error()})
			continue
		}
		inf := cache.NewSharedIndexInformerWithOptions(lw, exampleObject(), cache.SharedIndexInformerOptions{
			ResyncPeriod: Resync(),
			Indexers:     cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		})
		if err := SetTransform(inf); err != nil {
			log.Emit(out.Fields{"event": "error", "message": err.Error()})
		}
		for _, spec := range hs {
			reg, err := shim.AddHandler(inf, &handlers.Printer{Spec: spec, Resource: r, Log: log}, spec.Resync)
			if err != nil {
				log.Emit(out.Fields{"event": "error", "message": err.Error()})
				continue
			}
			wg.Go(func() {
				if shim.Synced(ctx, reg) {
					log.Emit(out.Fields{"event": "handler-synced", "resource": r, "handler": spec.Name})
				}
			})
		}
		wg.Go(func() { shim.Run(ctx, inf) })
		stores = append(stores, resourceStore{r, inf.GetStore()})
	}
	waitEnd(s, file.LastT)
	for _, rs := range stores {
		DumpCache(log, rs.resource, rs.store)
	}
	log.Emit(out.Fields{"event": "end", "left_over": s.left(), "why": s.why})
	log.Close()
	cancel()
	wg.Wait()
	// A request client-go's REST layer is about to retry sleeps out its Retry-After without
	// watching the context (rest/with_retry.go Before, NoBackoff.Sleep), in a goroutine the
	// reflector does not wait for; the bubble's clock stands still once this function returns,
	// so it is let run out here (virtual time: free).
	time.Sleep(drain)
	return log.Lines()
}

// resourceStore is one resource's informer cache.
type resourceStore struct {
	resource string
	store    cache.Store
}

// DumpCache writes the informer's cache, one `cache` line per object in key order: its key and
// resourceVersion.
func DumpCache(log *out.Log, resource string, store cache.Store) {
	objs := store.List()
	keys := make([]string, 0, len(objs))
	rvs := map[string]string{}
	for _, obj := range objs {
		key, err := cache.MetaNamespaceKeyFunc(obj)
		m, merr := meta.Accessor(obj)
		if err != nil || merr != nil {
			continue
		}
		keys = append(keys, key)
		rvs[key] = m.GetResourceVersion()
	}
	sort.Strings(keys)
	for _, key := range keys {
		log.Emit(out.Fields{"event": "cache", "resource": resource, "key": key, "rv": rvs[key]})
	}
}

// waitEnd mirrors kinformer replay's end: every entry handed out and the recording's stop time
// reached (then the settle time), a mismatch (at once), or nothing asked for during a stall past
// the end.
func waitEnd(s *session, lastT int64) {
	seen := -1
	for {
		select {
		case <-s.ended:
			if s.why == "finished" {
				s.sleepUntil(nil, lastT)
				time.Sleep(settle)
			}
			return
		case <-time.After(stall):
			left := s.left()
			if !time.Now().Before(s.due(lastT)) && left == seen {
				s.end("stalled")
				time.Sleep(settle)
				return
			}
			seen = left
		}
	}
}

// Write writes the header and every distinct run, each after a run line, to -out.
func Write(distinct [][]string) error {
	w := os.Stdout
	if *outPath != "" {
		f, err := os.Create(*outPath)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	b := bufio.NewWriter(w)
	fmt.Fprintln(b, header(len(distinct)))
	for i, lines := range distinct {
		fmt.Fprintf(b, "{\"event\":\"run\",\"run\":%d}\n", i+1)
		for _, l := range lines {
			fmt.Fprintln(b, l)
		}
	}
	return b.Flush()
}

// gates are the client-go gates the header reports, those the release knows.
var gates = []string{"InOrderInformers", "InOrderInformersBatchProcess", "WatchListClient", "AtomicFIFO",
	"UnlockWhileProcessingFIFO", "InformerResourceVersion"}

// clientGo is the client-go version, set by scripts/oracle
// (-ldflags -X kinformer.dev/oracle/replay.clientGo=…): a test binary carries no module list.
var clientGo = "unknown"

// RecordPath is the -record flag.
func RecordPath() string { return *recordPath }

// Release is the client-go release in kinformer's spelling: v0.37.2 is "1.37".
func Release() string {
	var minor int
	if _, err := fmt.Sscanf(clientGo, "v0.%d.", &minor); err != nil {
		return clientGo
	}
	return fmt.Sprintf("1.%d", minor)
}

func header(distinct int) string {
	var g []string
	for _, name := range gates {
		if on, known := enabled(name); known {
			g = append(g, fmt.Sprintf("%q:%t", name, on))
		}
	}
	return fmt.Sprintf(`{"oracle":1,"client_go":%q,"go":%q,"gates":{%s},"record":%q,"runs":%d,"distinct":%d}`,
		clientGo, runtime.Version(), strings.Join(g, ","), *recordPath, *runs, distinct)
}

// PollSynced is Shim.Synced for releases without HasSyncedChecker (≤ 1.35): it polls every
// 10ms of virtual time.
func PollSynced(ctx context.Context, reg cache.ResourceEventHandlerRegistration) bool {
	for !reg.HasSynced() {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}

// enabled reads a gate; known is false when the release does not have it (Enabled panics).
func enabled(name string) (on, known bool) {
	defer func() {
		if recover() != nil {
			on, known = false, false
		}
	}()
	return features.FeatureGates().Enabled(features.Feature(name)), true
}

// exampleObject is the informer's object type: Unstructured (a dynamic informer), or
// PartialObjectMetadata with -metadata-only (a metadata informer).
func exampleObject() kruntime.Object {
	if *metadataOnly {
		return &metav1.PartialObjectMetadata{}
	}
	return &unstructured.Unstructured{}
}

// SetTransform installs the -transform flag's transform with the informer's SetTransform.
func SetTransform(inf cache.SharedIndexInformer) error {
	switch *transform {
	case "":
		return nil
	case "strip-managed-fields":
		return inf.SetTransform(stripManagedFields)
	}
	return fmt.Errorf("unknown -transform %q (strip-managed-fields)", *transform)
}

// stripManagedFields drops metadata.managedFields, as kinformer's --transform
// strip-managed-fields and client-go's documented SetTransform example do.
func stripManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
