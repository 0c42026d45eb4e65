package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kinformer.dev/tap"
)

// A server that streams a watch-list's objects and never its k8s.io/initial-events-end
// bookmark (kubernetes/kubernetes#135895): client-go 1.37 streams its list by default and
// waits forever; the tap says so by name.
func TestAWatchListWithoutItsBookmarkIsDiagnosedNotSynced(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			fmt.Fprint(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[]}`)
			return
		}
		if r.URL.Query().Get("sendInitialEvents") == "true" {
			fmt.Fprint(w, `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"99"}}}`+"\n")
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer s.Close()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, s.URL)), 0o600)
	file := filepath.Join(dir, "tap.jsonl")
	err := run(kubeconfig, "ns", 0, 1500*time.Millisecond, 0, 1, tap.Options{File: file, NotSyncedAfter: 700 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var diagnosis map[string]any
	watchList := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l map[string]any
		json.Unmarshal(sc.Bytes(), &l)
		if l["event"] == "watch-start" && l["watch_list"] == true {
			watchList = true
		}
		if l["event"] == "not-synced" {
			diagnosis = l
		}
	}
	if !watchList {
		t.Fatal("client-go 1.37 did not stream its list (no watch-start with watch_list)")
	}
	if diagnosis == nil || diagnosis["reason"] != "WatchListNoBookmark" {
		t.Fatalf("diagnosis %v", diagnosis)
	}
}
