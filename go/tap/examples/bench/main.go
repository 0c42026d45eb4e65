// Command bench measures the tap's overhead (docs/debug-go-controller.md): client-go's typed
// pod informer (protobuf, as kube-controller-manager runs it) syncing every pod of a cluster,
// with or without the tap, and the CPU time (user + system) the process spent from starting the
// informer until it and its handler synced and the tap wrote its last line. Prints `items N`, `cpu_ms N`, `tap_lines_dropped N`.
//
//	bench -kubeconfig KUBECONFIG [-tap-file FILE [-lean]] [-cpuprofile FILE]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"kinformer.dev/tap"
)

const protobuf = "application/vnd.kubernetes.protobuf"

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "the kubeconfig")
	file := flag.String("tap-file", "", "tap into this file (without it: no tap)")
	lean := flag.Bool("lean", false, "the tap's Lean option: no per-object lines")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the run here")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*kubeconfig, tap.Options{File: *file, Lean: *lean}); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(kubeconfig string, o tap.Options) error {
	if o.File != "" {
		if _, err := tap.Start(o); err != nil {
			return err
		}
	}
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	config.QPS = -1
	config.ContentType = protobuf
	config.AcceptContentTypes = strings.Join([]string{protobuf, "application/json"}, ",")
	before := cpu()
	client, err := kubernetes.NewForConfig(tap.Config(config))
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	pods := tap.Informer(factory.Core().V1().Pods().Informer(), "pods")
	reg, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) {}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), pods.HasSynced, reg.HasSynced) {
		return fmt.Errorf("not synced")
	}
	var dropped int64
	if t := tap.Active(); t != nil {
		t.Close() // the writer's work counts: closing waits until every line is written
		dropped = t.Dropped()
	}
	used := cpu() - before
	fmt.Printf("items %d\ncpu_ms %d\ntap_lines_dropped %d\n", len(pods.GetStore().ListKeys()), used.Milliseconds(), dropped)
	cancel()
	factory.Shutdown()
	return nil
}

// cpu is the user and system time this process has used.
func cpu() time.Duration {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
