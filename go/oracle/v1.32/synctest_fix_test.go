package oracle

import (
	"time"
	_ "unsafe" // go:linkname
)

// neverExitWatch is client-go's channel for "no resync" (reflector.go, until 1.35 made it nil),
// made at package init, outside any synctest bubble: a reflector selecting on it is not durably
// blocked, so virtual time would never advance with --resync 0. Set to nil as 1.35 does (a nil
// channel blocks forever, durably); nothing is ever sent on either.
//
//go:linkname neverExitWatch k8s.io/client-go/tools/cache.neverExitWatch
var neverExitWatch <-chan time.Time

func init() { neverExitWatch = nil }
