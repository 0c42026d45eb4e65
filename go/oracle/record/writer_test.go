package record

import (
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

func pod(name, rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod"}}
	u.SetNamespace("default")
	u.SetName(name)
	u.SetResourceVersion(rv)
	return u
}

// A live run's traffic written by the Writer reads back as the exchanges kinformer's replay
// groups it into: a LIST and its page, a watch's frames and its server-side end, a LIST
// answered 429 with Retry-After. Plain and zstd.
func TestWriterRoundTrip(t *testing.T) {
	for _, name := range []string{"live.jsonl", "live.jsonl.zst"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			w, err := Create(path, "1.37", "v1.37.2", []string{"pods"})
			if err != nil {
				t.Fatal(err)
			}
			w.List("pods", metav1.ListOptions{ResourceVersion: "0", Limit: 500})
			l := &unstructured.UnstructuredList{Object: map[string]any{}}
			l.SetResourceVersion("10")
			l.Items = []unstructured.Unstructured{*pod("a", "5"), *pod("b", "7")}
			w.ListAnswer("pods", l, nil)

			fake := watch.NewFake()
			timeout := int64(300)
			rw, err := w.Watch("pods", metav1.ListOptions{ResourceVersion: "10", TimeoutSeconds: &timeout}, fake, nil)
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				fake.Add(pod("c", "11"))
				bm := pod("", "12")
				bm.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
				fake.Action(watch.Bookmark, bm)
				fake.Error(&apierrors.NewResourceExpired("too old resource version").ErrStatus)
				fake.Stop() // the server ends the watch
			}()
			var got []watch.EventType
			for ev := range rw.ResultChan() {
				got = append(got, ev.Type)
			}
			if len(got) != 3 {
				t.Fatalf("passed on %v, want ADDED BOOKMARK ERROR", got)
			}
			w.List("pods", metav1.ListOptions{ResourceVersion: "12"})
			tooMany := apierrors.NewTooManyRequests("slow down", 1)
			w.ListAnswer("pods", nil, tooMany)
			w.Watch("pods", metav1.ListOptions{ResourceVersion: "12"}, nil,
				apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", nil))
			time.Sleep(time.Millisecond)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}

			f, err := Load(path, "")
			if err != nil {
				t.Fatal(err)
			}
			xs := f.Exchanges["pods"]
			if len(xs) != 4 {
				t.Fatalf("%d exchanges, want 4", len(xs))
			}
			if p := xs[0].Answer.Value.Page; xs[0].List.RV != "0" || xs[0].List.Limit != 500 || p.RV != "10" || len(p.Items) != 2 || p.Continue != nil {
				t.Errorf("first LIST: %+v answered %+v", xs[0].List, p)
			}
			items := xs[1].Items
			if xs[1].Watch.RV != "10" || xs[1].Watch.TimeoutS != 300 || len(items) != 4 || !xs[1].Closed() {
				t.Fatalf("watch: %+v with %d items (closed: %t)", xs[1].Watch, len(items), xs[1].Closed())
			}
			if fr := items[0].Value.Frame; fr.Type != "ADDED" || len(fr.Object) == 0 {
				t.Errorf("frame 1: %+v", fr)
			}
			if fr := items[1].Value.Frame; fr.Type != "BOOKMARK" || fr.RV != "12" || !fr.InitialEventsEnd {
				t.Errorf("frame 2: %+v", fr)
			}
			if fr := items[2].Value.Frame; fr.Type != "ERROR" || fr.Status.Code != 410 || fr.Status.Kind != "api" {
				t.Errorf("frame 3: %+v", fr)
			}
			if e := xs[2].Answer.Value.Error; e == nil || e.Code != 429 || e.RetryAfterMs == nil || *e.RetryAfterMs != 1000 {
				t.Errorf("second LIST answered %+v", xs[2].Answer.Value)
			}
			if e := xs[3].OpenError; e == nil || e.Value.Code != 403 {
				t.Errorf("WATCH open answered %+v", e)
			}
		})
	}
}
