// Command informer is a plain client-go program with a deliberately slow handler, adopting the
// tap in two lines (marked "tap:"). It watches one namespace's ConfigMaps with a "slow" handler
// (-delay per notification) and a "fast" one, optionally creates -create ConfigMaps at -rate
// per second itself, runs -for a while (or until SIGINT/SIGTERM) and closes the tap, which
// writes its summary.
//
//	informer -kubeconfig KUBECONFIG -namespace NS -tap-file tap.jsonl -delay 50ms -for 10s
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"kinformer.dev/tap"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "the kubeconfig")
	namespace := flag.String("namespace", "default", "the namespace whose ConfigMaps are watched")
	delay := flag.Duration("delay", 50*time.Millisecond, "how long the slow handler takes per notification")
	runFor := flag.Duration("for", 0, "how long to run (0: until SIGINT or SIGTERM)")
	create := flag.Int("create", 0, "ConfigMaps to create in the namespace once synced")
	rate := flag.Float64("rate", 50, "ConfigMaps created per second")
	file := flag.String("tap-file", "", "the tap's JSONL file")
	listen := flag.String("tap-listen", "", "the tap's loopback HTTP address (GET /trace)")
	record := flag.String("tap-record", "", "the tap's record file of the traffic (kinformer replay reads it)")
	notSynced := flag.Duration("not-synced-after", 10*time.Second, "when an informer not synced is diagnosed")
	window := flag.Duration("backlog-window", 2*time.Second, "the window a handler's backlog is measured over")
	flag.Parse()
	if err := run(*kubeconfig, *namespace, *delay, *runFor, *create, *rate,
		tap.Options{File: *file, Listen: *listen, Record: *record, NotSyncedAfter: *notSynced, BacklogWindow: *window}); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, ns string, delay, runFor time.Duration, create int, rate float64, o tap.Options) error {
	if o.File != "" || o.Listen != "" || o.Record != "" {
		t, err := tap.Start(o)
		if err != nil {
			return err
		}
		if t.Addr() != "" {
			fmt.Fprintf(os.Stderr, "tap: listening on http://%s/trace\n", t.Addr())
		}
	}
	defer tap.Active().Close()
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	config.QPS, config.Burst = 1000, 1000 // -rate, not client-go's default 5 per second, paces the writes
	config = tap.Config(config)           // tap: the client's LISTs and WATCHes
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	configMaps := tap.Informer(factory.Core().V1().ConfigMaps().Informer(), "configmaps") // tap: queue and handlers
	for name, d := range map[string]time.Duration{"slow": delay, "fast": 0} {
		work := func(any) { time.Sleep(d) }
		handler := cache.ResourceEventHandlerFuncs{AddFunc: work, DeleteFunc: work, UpdateFunc: func(_, o any) { work(o) }}
		if _, err := configMaps.AddEventHandler(tap.Named(name, handler)); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if runFor > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, runFor)
		defer cancel()
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	if create > 0 && cache.WaitForCacheSync(ctx.Done(), configMaps.HasSynced) {
		if err := createConfigMaps(ctx, client, ns, create, rate); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return nil
}

// createConfigMaps creates tap-0, tap-1, … at rate per second.
func createConfigMaps(ctx context.Context, client kubernetes.Interface, ns string, n int, rate float64) error {
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	for i := range n {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("tap-%d", i)}, Data: map[string]string{"i": fmt.Sprint(i)}}
		if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
	return nil
}
