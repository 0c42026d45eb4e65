package replay

import (
	"context"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// The informer's ListerWatcher is client-go's own client — a dynamic client, or with
// -metadata-only a metadata client, as dynamicinformer and metadatainformer build theirs — on a
// rest.Config whose transport is the recording (transport.go). So every request goes through
// client-go's rest.Request (its silent retries, Retry-After waits, empty watch), its decoders,
// framer and StreamWatcher, as against a server.

// resourceClient is what the ListerWatcher needs of a dynamic or metadata resource client.
type resourceClient interface {
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// newListerWatcher builds the client for resource on a config whose transport is rt.
func newListerWatcher(ctx context.Context, resource string, rt http.RoundTripper) (*listerWatcher, error) {
	config := &rest.Config{
		Host:      "http://replay.invalid",
		Transport: rt,
		// kinformer does not model the client-side rate limiter (as the live mode).
		QPS: -1,
	}
	gvr := groupVersionResource(resource)
	var client resourceClient
	if *metadataOnly {
		c, err := metadata.NewForConfig(config)
		if err != nil {
			return nil, err
		}
		client = metadataClient{c.Resource(gvr)}
	} else {
		c, err := dynamic.NewForConfig(config)
		if err != nil {
			return nil, err
		}
		client = dynamicClient{c.Resource(gvr)}
	}
	return &listerWatcher{ctx: ctx, client: client}, nil
}

// groupVersionResource reads a recording's resource name (`pods`, `deployments.apps`,
// `kubectl/pods@default` for a proxy stream); the version only shapes the URL path.
func groupVersionResource(resource string) schema.GroupVersionResource {
	if i := strings.LastIndex(resource, "/"); i >= 0 {
		resource = resource[i+1:]
	}
	if i := strings.Index(resource, "@"); i >= 0 {
		resource = resource[:i]
	}
	gr := schema.ParseGroupResource(resource)
	return gr.WithVersion("v1")
}

type dynamicClient struct {
	c dynamic.NamespaceableResourceInterface
}

func (d dynamicClient) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return d.c.List(ctx, opts)
}

func (d dynamicClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return d.c.Watch(ctx, opts)
}

type metadataClient struct{ c metadata.ResourceInterface }

func (m metadataClient) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return m.c.List(ctx, opts)
}

func (m metadataClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return m.c.Watch(ctx, opts)
}

// listerWatcher is the informer's ListerWatcher over the client, as dynamicinformer's ListWatch.
type listerWatcher struct {
	ctx    context.Context
	client resourceClient
}

var _ cache.ListerWatcher = (*listerWatcher)(nil)

// List lists (ListerWatcher, every release).
func (lw *listerWatcher) List(opts metav1.ListOptions) (runtime.Object, error) {
	return lw.client.List(lw.ctx, opts)
}

// ListWithContext lists (ListerWatcherWithContext, 1.33+).
func (lw *listerWatcher) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return lw.client.List(ctx, opts)
}

// Watch watches (ListerWatcher, every release).
func (lw *listerWatcher) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return lw.client.Watch(lw.ctx, opts)
}

// WatchWithContext watches (ListerWatcherWithContext, 1.33+).
func (lw *listerWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return lw.client.Watch(ctx, opts)
}

// IsWatchListSemanticsUnSupported says the recording's server serves watch-list (1.35+ asks).
func (lw *listerWatcher) IsWatchListSemanticsUnSupported() bool { return false }
