package expr

import (
	"sync"
	"sync/atomic"
)

// Parsed trees are never modified after parsing, so Compile shares them
// between requests: applications send the same few expression strings over
// and over, and parsing is most of the cost of compiling.
const maxCached = 4096

type cacheKey struct {
	kind byte
	src  string
}

type cacheEntry struct {
	tree any
	err  error
}

var (
	parseCache sync.Map // cacheKey -> cacheEntry
	cacheSize  atomic.Int64
)

func cachedParse[T any](kind byte, src string, parse func(string) (T, error)) (T, error) {
	key := cacheKey{kind, src}
	if e, ok := parseCache.Load(key); ok {
		ce := e.(cacheEntry)
		t, _ := ce.tree.(T)
		return t, ce.err
	}
	t, err := parse(src)
	if cacheSize.Add(1) > maxCached {
		parseCache.Clear()
		cacheSize.Store(0)
	}
	parseCache.Store(key, cacheEntry{tree: t, err: err})
	return t, err
}
