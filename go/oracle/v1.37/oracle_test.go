//go:debug randseednop=0

// The client-go 1.37 oracle: `go test -c -o oracle.test`, then
// `./oracle.test -test.run TestReplay -record FILE [-resync DUR] [-handler SPEC]… [-out FILE]`
// (replay); live mode (`scripts/oracle --live`, build tag `live`): live_test.go.
// 1.37 has AddEventHandlerWithOptions, RunWithContext and HasSyncedChecker.
package oracle

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	"kinformer.dev/oracle/replay"
)

type shim struct{}

func (shim) AddHandler(inf cache.SharedIndexInformer, h cache.ResourceEventHandler, resync *time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return inf.AddEventHandlerWithOptions(h, cache.HandlerOptions{ResyncPeriod: resync})
}

func (shim) Run(ctx context.Context, inf cache.SharedIndexInformer) { inf.RunWithContext(ctx) }

func (shim) Synced(ctx context.Context, reg cache.ResourceEventHandlerRegistration) bool {
	select {
	case <-reg.HasSyncedChecker().Done():
		return true
	case <-ctx.Done():
		return false
	}
}

func TestReplay(t *testing.T) { replay.Test(t, shim{}) }
