package badinput_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/httpapi"
)

func problemSlug(typ string) string { return strings.TrimPrefix(typ, httpapi.ProblemTypeBase) }

var fuzzMethods = []string{"POST", "GET", "PUT", "DELETE"}

// FuzzRequest sends arbitrary requests (method, path with query, headers,
// body) through the local runner's handler: no input may panic or produce
// a 5xx (no faults are injected, so a 5xx is a bug), and a rejected request
// (4xx) must leave the table unchanged, but for a declined money flow's one
// idempotency record holding its answer. Seed corpus:
// testdata/fuzz/FuzzRequest (run by plain go test).
func FuzzRequest(f *testing.F) {
	e := newEnv(f)
	before := e.snapshot(f)
	f.Fuzz(func(t *testing.T, method uint8, path, contentType, key string, body []byte) {
		m := fuzzMethods[int(method)%len(fuzzMethods)]
		if len(path) == 0 || path[0] != '/' {
			path = "/" + path
		}
		if _, err := http.NewRequest(m, "http://api.local"+path, nil); err != nil {
			return // not a URL a client could send
		}
		h := http.Header{}
		if contentType != "" {
			h.Set("Content-Type", contentType)
		}
		if key != "" {
			h.Set("Idempotency-Key", key)
		}
		r := e.do(m, path, h, body)
		switch {
		case r.status >= 500 || r.status < 200:
			t.Fatalf("%s %s (Content-Type %q, key %q, body %q): status %d %s", m, path, contentType, key, body, r.status, r.body)
		case r.status >= 400:
			after := e.snapshot(t)
			if after != before && storedProblem(problemSlug(r.typ)) && onlyRecord(before, after, r.status) {
				before = after // a declined money flow stores its answer under the key
				return
			}
			if after != before {
				t.Fatalf("%s %s (Content-Type %q, key %q, body %q) was refused with %d %s but wrote:\nbefore: %s\nafter:  %s",
					m, path, contentType, key, body, r.status, r.body, before, after)
			}
		default:
			before = e.snapshot(t) // a success may write; compare the next refusal with this state
		}
	})
}
