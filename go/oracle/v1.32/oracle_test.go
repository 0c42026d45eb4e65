//go:debug randseednop=0

// The client-go 1.32 oracle: `go test -c -o oracle.test`, then
// `./oracle.test -test.run TestReplay -record FILE [-resync DUR] [-handler SPEC]… [-out FILE]`
// (replay); live mode (`scripts/oracle --live`, build tag `live`): live_test.go.
// 1.32 has no AddEventHandlerWithOptions, RunWithContext nor HasSyncedChecker.
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
	if resync == nil {
		return inf.AddEventHandler(h)
	}
	return inf.AddEventHandlerWithResyncPeriod(h, *resync)
}

func (shim) Run(ctx context.Context, inf cache.SharedIndexInformer) { inf.Run(ctx.Done()) }

func (shim) Synced(ctx context.Context, reg cache.ResourceEventHandlerRegistration) bool {
	return replay.PollSynced(ctx, reg)
}

func TestReplay(t *testing.T) { replay.Test(t, shim{}) }
