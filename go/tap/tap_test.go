package tap

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// fakeServer answers one namespace's configmaps: a LIST of n objects (or the status given),
// and a WATCH that stays open; a watch-list gets the objects as ADDED events and, when
// bookmark is set, the initial-events-end bookmark.
type fakeServer struct {
	n        int
	status   int
	bookmark bool
}

func configMap(i int) map[string]any {
	return map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i), "namespace": "ns",
		"resourceVersion": fmt.Sprint(10 + i)}}
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if f.status != 0 {
		w.WriteHeader(f.status)
		json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
			"code": f.status, "reason": "Forbidden",
			"message": `configmaps is forbidden: User "viewer" cannot list resource "configmaps" in API group "" in the namespace "ns"`})
		return
	}
	if r.URL.Query().Get("watch") != "true" {
		items := []any{}
		for i := range f.n {
			items = append(items, configMap(i))
		}
		json.NewEncoder(w).Encode(map[string]any{"kind": "ConfigMapList", "apiVersion": "v1",
			"metadata": map[string]any{"resourceVersion": "100"}, "items": items})
		return
	}
	enc := json.NewEncoder(w)
	if r.URL.Query().Get("sendInitialEvents") == "true" {
		for i := range f.n {
			enc.Encode(map[string]any{"type": "ADDED", "object": configMap(i)})
		}
		if f.bookmark {
			enc.Encode(map[string]any{"type": "BOOKMARK", "object": map[string]any{"kind": "ConfigMap", "apiVersion": "v1",
				"metadata": map[string]any{"resourceVersion": "100", "annotations": map[string]any{initialEventsEnd: "true"}}}})
		}
	}
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// run taps a configmap informer of server with handlers, runs it for d, closes the tap and
// returns its lines.
func run(t *testing.T, server http.Handler, o Options, d time.Duration, handlers map[string]func()) []map[string]any {
	t.Helper()
	s := httptest.NewServer(server)
	defer s.Close()
	o.File = filepath.Join(t.TempDir(), "tap.jsonl")
	tp, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(Config(&rest.Config{Host: s.URL}))
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace("ns"))
	inf := Informer(factory.Core().V1().ConfigMaps().Informer(), "configmaps")
	for name, work := range handlers {
		f := func(any) { work() }
		if _, err := inf.AddEventHandler(Named(name, cache.ResourceEventHandlerFuncs{AddFunc: f, DeleteFunc: f,
			UpdateFunc: func(_, _ any) { work() }})); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	time.Sleep(d)
	cancel()
	factory.Shutdown()
	if err := tp.Close(); err != nil {
		t.Fatal(err)
	}
	return readLines(t, o.File)
}

func readLines(t *testing.T, path string) []map[string]any {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	seq := 0.0
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("not JSON: %s: %v", sc.Text(), err)
		}
		if l["seq"].(float64) <= seq {
			t.Fatalf("seq goes back: %s", sc.Text())
		}
		seq = l["seq"].(float64)
		lines = append(lines, l)
	}
	return lines
}

func having(lines []map[string]any, stage, event string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["stage"] == stage && l["event"] == event {
			out = append(out, l)
		}
	}
	return out
}

func TestEveryNotificationOfEachHandlerIsTracedWithItsQueueTimeAndBacklog(t *testing.T) {
	var slowCalls atomic.Int64
	lines := run(t, &fakeServer{n: 20, bookmark: true}, Options{}, 1500*time.Millisecond, map[string]func(){
		"slow": func() { slowCalls.Add(1); time.Sleep(20 * time.Millisecond) },
		"fast": func() {},
	})
	if got := having(lines, "reflector", "list-done"); len(got) == 0 && len(having(lines, "reflector", "bookmark")) == 0 {
		t.Fatalf("no list-done nor bookmark: %v", lines)
	}
	for _, name := range []string{"slow", "fast"} {
		var notified, handled []map[string]any
		for _, l := range having(lines, "handler", "notify") {
			if l["handler"] == name {
				notified = append(notified, l)
			}
		}
		for _, l := range having(lines, "handler", "handled") {
			if l["handler"] == name {
				handled = append(handled, l)
			}
		}
		if len(notified) != 20 || len(handled) != 20 {
			t.Fatalf("%s: %d notify, %d handled lines, want 20 each", name, len(notified), len(handled))
		}
		if notified[0]["queued"] == nil || notified[0]["kind"] != "add" || notified[0]["initial"] != true {
			t.Fatalf("%s: first notify %v", name, notified[0])
		}
	}
	// slow's first call started with the whole list pending behind it: 20 queued at once
	first := having(lines, "handler", "notify")
	for _, l := range first {
		if l["handler"] == "slow" {
			if l["pending"].(float64) < 10 {
				t.Fatalf("slow's first backlog %v, want most of the 20", l["pending"])
			}
			break
		}
	}
	if len(having(lines, "informer", "synced")) != 1 || len(having(lines, "informer", "handler-synced")) != 2 {
		t.Fatalf("synced lines: %v %v", having(lines, "informer", "synced"), having(lines, "informer", "handler-synced"))
	}
	summary := having(lines, "summary", "summary")
	if len(summary) != 1 || len(summary[0]["handlers"].([]any)) != 2 {
		t.Fatalf("summary %v", summary)
	}
}

func TestAForbiddenListIsTheNotSyncedDiagnosisNamingVerbAndResource(t *testing.T) {
	lines := run(t, &fakeServer{status: 403}, Options{NotSyncedAfter: 300 * time.Millisecond}, time.Second,
		map[string]func(){"h": func() {}})
	d := having(lines, "diagnosis", "not-synced")
	if len(d) != 1 {
		t.Fatalf("diagnoses %v", d)
	}
	if d[0]["code"] != 403.0 || d[0]["verb"] != "list" || d[0]["resource"] != "configmaps" ||
		!strings.Contains(d[0]["cause"].(string), `lack verb "list" on resource "configmaps" in namespace ns`) {
		t.Fatalf("diagnosis %v", d[0])
	}
	if len(having(lines, "reflector", "list-error")) == 0 || len(having(lines, "reflector", "error")) == 0 {
		t.Fatalf("no list-error or reflector error line")
	}
}

func TestTheTapIsOffWithoutStartOrEnvironment(t *testing.T) {
	if Active() != nil {
		t.Fatal("a tap runs")
	}
	c := &rest.Config{Host: "http://127.0.0.1:1"}
	if Config(c) != c {
		t.Fatal("Config changed the config with the tap off")
	}
}

func TestLeanLeavesOutPerObjectLinesAndKeepsTheirCounts(t *testing.T) {
	lines := run(t, &fakeServer{n: 20, bookmark: true}, Options{Lean: true}, time.Second,
		map[string]func(){"h": func() {}})
	for _, event := range []string{"notify", "handled", "watch-event"} {
		for _, l := range lines {
			if l["event"] == event {
				t.Fatalf("a %s line in a lean tap: %v", event, l)
			}
		}
	}
	if len(having(lines, "informer", "synced")) != 1 {
		t.Fatal("no synced line")
	}
	summary := having(lines, "summary", "summary")[0]["handlers"].([]any)[0].(map[string]any)
	if summary["adds"] != 20.0 || summary["handled"] != 20.0 {
		t.Fatalf("summary %v", summary)
	}
}
