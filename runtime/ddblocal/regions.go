package ddblocal

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Several Regions in one engine (Options.Regions). Each Region is an
// Engine of its own, with its own tables, ClientRequestTokens, streams and
// data file, as DynamoDB's Regions are independent services; they share a
// regionSet, which routes requests and replicates global tables between
// them. One endpoint serves them all: a request goes to the Region of its
// SigV4 credential scope, as real clients sign it and as DynamoDB Local
// keys its databases, so a client configured for eu-west-1 reaches the
// eu-west-1 replica with nothing else changed. An engine opened without
// Regions has no regionSet (Engine.global is nil) and pays one nil check
// per request for the feature.

// regionSet is the Regions of one engine.
type regionSet struct {
	names   []string // in Options.Regions order
	engines map[string]*Engine
	repl    *replicator
	// baseClock is Options.Clock; each Region's engine reads it plus the
	// Region's skew (Replication.SetClockSkew).
	baseClock func() time.Time
	skew      map[string]*atomic.Int64

	mu     sync.Mutex
	groups map[string]*globalGroup // the global tables, by name
	// inflight names the MRSC items being written, by table and key, with
	// the Region writing each (replication_strong.go).
	inflight map[string]string
}

// openRegions opens one engine per Region of o.Regions and returns the
// one of o.Region (the first Region when o.Region is not set).
func openRegions(o Options) (*Engine, error) {
	set := &regionSet{engines: map[string]*Engine{}, baseClock: o.Clock, skew: map[string]*atomic.Int64{},
		groups: map[string]*globalGroup{}}
	for _, r := range o.Regions {
		if !validRegion(r) {
			return nil, fmt.Errorf("ddblocal: Region %q is not a Region name (lower-case letters, digits and dashes)", r)
		}
		if _, dup := set.engines[r]; dup {
			return nil, fmt.Errorf("ddblocal: Region %s is named twice in Options.Regions", r)
		}
		set.engines[r] = nil
		set.names = append(set.names, r)
		set.skew[r] = new(atomic.Int64)
	}
	primary := o.Region
	if primary == "" {
		primary = set.names[0]
	} else if _, ok := set.engines[primary]; !ok {
		return nil, fmt.Errorf("ddblocal: Options.Region %s is not one of Options.Regions %s", primary, strings.Join(set.names, ","))
	}
	set.repl = newReplicator(set, o.ManualReplication)
	for _, r := range set.names {
		ro := o
		ro.Regions = nil
		ro.Region = r
		skew := set.skew[r]
		ro.Clock = func() time.Time { return o.Clock().Add(time.Duration(skew.Load())) }
		if o.Dir != "" {
			ro.Dir = filepath.Join(o.Dir, r)
		}
		e, err := openEngine(ro)
		if err != nil {
			set.closeAll()
			return nil, err
		}
		e.global = set
		set.engines[r] = e
	}
	if err := set.load(); err != nil {
		set.closeAll()
		return nil, err
	}
	return set.engines[primary], nil
}

// closeAll closes every Region's engine that was opened.
func (s *regionSet) closeAll() error {
	s.repl.stop()
	var errs []error
	for _, r := range s.names {
		if e := s.engines[r]; e != nil {
			errs = append(errs, e.closeOne())
		}
	}
	return errors.Join(errs...)
}

// Region returns the engine of the named Region of Options.Regions, nil
// when the engine has no such Region. Its Client and StreamsClient sign
// their requests for that Region. On an engine opened without Regions,
// Region returns the engine itself for its Options.Region and nil for any
// other name.
func (e *Engine) Region(name string) *Engine {
	if e.global == nil {
		if name == e.opts.Region {
			return e
		}
		return nil
	}
	return e.global.engines[name]
}

// Regions lists the engine's Regions in the order of Options.Regions; an
// engine opened without Regions has one, Options.Region.
func (e *Engine) Regions() []string {
	if e.global == nil {
		return []string{e.opts.Region}
	}
	return append([]string(nil), e.global.names...)
}

// route returns the engine that serves r: the Region of its signature, or
// e itself for an unsigned request. A request signed for a Region the
// engine does not serve gets an error, as a client configured for a Region
// without the table's replica would find no endpoint. down reports a
// crashed Region (Replication.Crash), whose connections are reset.
func (s *regionSet) route(e *Engine, r *http.Request) (to *Engine, down bool, ae *APIError) {
	to = e
	if region := signedRegion(r.Header.Get("Authorization")); region != "" && region != e.opts.Region {
		if to = s.engines[region]; to == nil {
			return nil, false, &APIError{Code: "UnrecognizedClientException", Status: http.StatusBadRequest,
				Message: fmt.Sprintf("The request is signed for Region %s; this engine serves the Regions %s", region, strings.Join(s.names, ", "))}
		}
	}
	return to, to.regionDown.Load(), nil
}

// RegionHandler serves e's Region alone, as the Region's own endpoint
// (dynamodb.<region>.amazonaws.com) does: an unsigned request is served
// by this Region, and a request signed for another Region is refused with
// the InvalidSignatureException DynamoDB's endpoints answer ("Credential
// should be scoped to a valid region, not 'us-east-2'."). It is the
// handler of a port per Region; Handler serves every Region on one port.
func (e *Engine) RegionHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if region := signedRegion(r.Header.Get("Authorization")); region != "" && region != e.opts.Region {
			w.Header()["X-Amzn-Requestid"] = []string{e.requestID()}
			writeError(w, &APIError{Code: "InvalidSignatureException", Status: http.StatusBadRequest,
				Message: fmt.Sprintf("Credential should be scoped to a valid region, not '%s'.", region)})
			return
		}
		e.serveHTTP(w, r)
	})
}
