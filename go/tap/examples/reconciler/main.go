// Command reconciler is a controller-runtime manager with one reconciler on Deployments,
// adopting the tap in two lines (marked "tap:"): tap.Start (or KINFORMER_TAP) and
// crtap.Manager, which wraps the REST config and makes the manager's cache create tapped
// informers. Each reconcile takes -delay; it runs -for a while (or until SIGINT/SIGTERM).
//
//	reconciler -kubeconfig KUBECONFIG -namespace NS -tap-file tap.jsonl -delay 100ms
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"kinformer.dev/tap"
	"kinformer.dev/tap/crtap"
)

func main() {
	// -kubeconfig is controller-runtime's own flag (pkg/client/config registers it)
	namespace := flag.String("namespace", "default", "the namespace whose Deployments are reconciled")
	delay := flag.Duration("delay", 100*time.Millisecond, "how long each reconcile takes")
	runFor := flag.Duration("for", 0, "how long to run (0: until SIGINT or SIGTERM)")
	file := flag.String("tap-file", "", "the tap's JSONL file")
	listen := flag.String("tap-listen", "", "the tap's loopback HTTP address (GET /trace)")
	notSynced := flag.Duration("not-synced-after", 10*time.Second, "when an informer not synced is diagnosed")
	flag.Parse()
	if err := run(*namespace, *delay, *runFor, tap.Options{File: *file, Listen: *listen, NotSyncedAfter: *notSynced}); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(ns string, delay, runFor time.Duration, o tap.Options) error {
	if o.File != "" || o.Listen != "" {
		if _, err := tap.Start(o); err != nil { // tap: where it writes (or KINFORMER_TAP)
			return err
		}
	}
	defer tap.Active().Close()
	config, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	config, options := crtap.Manager(config, manager.Options{ // tap: traffic and informers
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	mgr, err := manager.New(config, options)
	if err != nil {
		return err
	}
	reconciled := 0
	err = ctrl.NewControllerManagedBy(mgr).For(&appsv1.Deployment{}).Named("deployments").
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			time.Sleep(delay)
			reconciled++
			return reconcile.Result{}, nil
		}))
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if runFor > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, runFor)
		defer cancel()
	}
	if err := mgr.Start(ctx); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "reconciled %d times\n", reconciled)
	return nil
}
