package ddblocal

import (
	"hash/maphash"
	"sync/atomic"
)

// Requests repeat the same short strings call after call: table names,
// expressions, attribute names and placeholders. The decoder takes them
// from a small direct-mapped cache instead of allocating each one again.
// A slot holds the last string that hashed to it; a miss allocates and
// replaces it, so the cache is bounded (internSlots strings of at most
// internMax bytes) and never grows with the data. Item values are not
// interned: they are rarely repeated.
const (
	internSlots = 4096
	internMax   = 256
)

var (
	internSeed  = maphash.MakeSeed()
	internCache [internSlots]atomic.Pointer[string]
)

// intern returns string(b), shared with earlier calls for the same bytes.
func intern(b []byte) string {
	if len(b) > internMax {
		return string(b)
	}
	slot := &internCache[maphash.Bytes(internSeed, b)&(internSlots-1)]
	if p := slot.Load(); p != nil && *p == string(b) {
		return *p
	}
	s := string(b)
	slot.Store(&s)
	return s
}
