package idemhttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemhttp"
)

// TestTooLargeAnswer: an answer whose record would exceed DynamoDB's item
// size limit is a 500 problem naming the size and the limit, in both modes,
// and nothing is stored: the same key then runs a smaller answer.
func TestTooLargeAnswer(t *testing.T) {
	records, _ := counterTable(t)
	caller := func(*http.Request) (string, error) { return "team-a", nil }
	huge := strings.Repeat("x", 500_000)
	small := false
	transactional := idemhttp.Transactional(records, caller, func(context.Context, idemhttp.Call) (idemhttp.Plan, error) {
		return idemhttp.Plan{Effect: func(time.Time) (*idempotency.Effect, error) {
			if small {
				return &idempotency.Effect{Status: 201, Body: "ok"}, nil
			}
			return &idempotency.Effect{Status: 201, Body: huge}, nil
		}}, nil
	})
	external := idemhttp.External(records, caller, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		if small {
			w.Write([]byte(`"ok"`))
			return
		}
		w.Write([]byte(huge))
	}))
	for name, h := range map[string]http.Handler{"transactional": transactional, "external": external} {
		small = false
		send := func() *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "/labels/"+name, strings.NewReader(`{}`))
			req.Header.Set("Idempotency-Key", "label-"+name)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		rec := send()
		if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "over DynamoDB's item size limit of 409600") {
			t.Errorf("%s: %d %s, want 500 naming the limit", name, rec.Code, rec.Body.String())
		}
		small = true
		if rec = send(); rec.Code != http.StatusCreated || rec.Header().Get(idemhttp.ReplayedHeader) != "" {
			t.Errorf("%s, the same key with a small answer: %d %s, want a first 201", name, rec.Code, rec.Body.String())
		}
	}
}
