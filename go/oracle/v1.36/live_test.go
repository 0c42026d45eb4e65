//go:build live

// Live mode (`scripts/oracle --live`): `./oracle-live.test -test.run TestLive -live RESOURCE
// [-kubeconfig F] [-namespace NS] [-timeout DUR] [-handler SPEC]… [-out FILE]`. Behind a build tag:
// its kubeconfig and discovery packages triple the oracle's build time.
package oracle

import (
	"testing"

	"kinformer.dev/oracle/live"
)

func TestLive(t *testing.T) { live.Test(t, shim{}) }
