// Package crtap adopts the Go tap (kinformer.dev/tap) in a controller-runtime manager: every
// informer the manager's cache creates is tapped under its resource, with controller-runtime's
// own transform and watch-error handler chained behind the tap's, and every handler a
// controller registers on it (its Kind sources) traced.
//
//	config, options = crtap.Manager(config, manager.Options{Scheme: scheme})
//	mgr, err := manager.New(config, options)
//
// or, when only the cache is built by hand, cache.Options{NewInformer: crtap.NewInformer}.
package crtap

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"kinformer.dev/tap"
)

// NewInformer is a cache.Options.NewInformer: client-go's shared index informer, as
// controller-runtime builds it, tapped under its resource (`deployments.apps`).
func NewInformer(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	return tap.Informer(toolscache.NewSharedIndexInformer(lw, obj, resync, indexers), Resource(obj))
}

// Manager returns config with the tap's transport (tap.Config) and options whose cache
// creates tapped informers; with the tap off both come back as given.
func Manager(config *rest.Config, options manager.Options) (*rest.Config, manager.Options) {
	if tap.Active() == nil {
		return config, options
	}
	options.Cache.NewInformer = NewInformer
	return tap.Config(config), options
}

// Resource is obj's resource as kubectl spells it (`pods`, `deployments.apps`): from the kind
// its TypeMeta or client-go's scheme gives it, pluralised as the REST mapper guesses.
func Resource(obj runtime.Object) string {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		if kinds, _, err := scheme.Scheme.ObjectKinds(obj); err == nil && len(kinds) > 0 {
			gvk = kinds[0]
		}
	}
	if gvk.Kind == "" {
		name := fmt.Sprintf("%T", obj)
		return strings.ToLower(name[strings.LastIndex(name, ".")+1:]) + "s"
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	plural, _ := meta.UnsafeGuessKindToResource(gvk)
	return resourceName(plural)
}

func resourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource
	}
	return gvr.Resource + "." + gvr.Group
}
