package crtap

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestAnInformersResourceIsSpelledAsKubectlSpellsIt(t *testing.T) {
	widget := &unstructured.Unstructured{}
	widget.SetGroupVersionKind(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	partial := &metav1.PartialObjectMetadata{}
	partial.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))
	for _, c := range []struct {
		obj  runtime.Object
		want string
	}{
		{&corev1.Pod{}, "pods"},
		{&appsv1.Deployment{}, "deployments.apps"},
		{&corev1.Endpoints{}, "endpoints"},
		{&appsv1.StatefulSet{}, "statefulsets.apps"},
		{widget, "widgets.example.com"},
		{partial, "replicasets.apps"},
	} {
		if got := Resource(c.obj); got != c.want {
			t.Errorf("%T: %q, want %q", c.obj, got, c.want)
		}
	}
}
