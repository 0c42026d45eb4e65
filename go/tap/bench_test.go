package tap

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	pbserializer "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
)

// The tap's cost per object: what the overhead figure (docs/debug-go-controller.md) is made of.

func benchTap(b *testing.B) *Tap {
	t, err := Start(Options{File: "/dev/null", MaxBytes: 1 << 62})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { t.Close() })
	return t
}

func pod(i int) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%d", i), Namespace: "bench",
		ResourceVersion: fmt.Sprint(1000 + i), Labels: map[string]string{"app": "bench"}},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Image: "pause"}}}}
}

// One object through the transform and one handler's call.
func BenchmarkQueuedAndHandled(b *testing.B) {
	t := benchTap(b)
	inf := cache.NewSharedIndexInformer(&cache.ListWatch{}, &corev1.Pod{}, 0, cache.Indexers{})
	w := Informer(inf, "pods").(*informer)
	if _, err := w.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) {}}); err != nil {
		b.Fatal(err)
	}
	h := w.handlerList()[0]
	pods := make([]*corev1.Pod, b.N)
	for i := range pods {
		pods[i] = pod(i)
	}
	b.ResetTimer()
	for i := range b.N {
		obj, _ := w.transform(pods[i])
		h.OnAdd(obj, true)
	}
	b.StopTimer()
	_ = t
}

// One protobuf watch frame read by the transport.
func BenchmarkWatchFrame(b *testing.B) {
	benchTap(b)
	s := pbserializer.NewSerializer(scheme.Scheme, scheme.Scheme)
	var frame bytes.Buffer
	p := pod(1)
	p.Kind, p.APIVersion = "Pod", "v1"
	var obj bytes.Buffer
	if err := s.Encode(p, &obj); err != nil {
		b.Fatal(err)
	}
	event := &metav1.WatchEvent{Type: "ADDED"}
	event.Object.Raw = obj.Bytes()
	body, err := event.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	binary.Write(&frame, binary.BigEndian, uint32(len(body)))
	frame.Write(body)
	wb := &watchBody{t: Active(), r: request{resource: "pods"}, format: protobuf}
	b.ResetTimer()
	for range b.N {
		wb.buf = append(wb.buf[:0], frame.Bytes()...)
		wb.frames()
	}
	b.StopTimer()
	time.Sleep(10 * time.Millisecond)
}
