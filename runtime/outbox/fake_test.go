package outbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
)

// fakeEventBridge is a PutEvents endpoint. fail decides, per entry and
// per attempt at that entry (1, 2, ...), the error code to answer, "" to
// accept it; callErr, per call (1, 2, ...), fails the whole call with a
// 500.
type fakeEventBridge struct {
	mu        sync.Mutex
	fail      func(id string, attempt int) string
	callErr   func(call int) bool
	attempts  map[string]int
	calls     [][]string // event ids per call that reached the bus
	published []string   // ids of accepted entries, in order
	envelopes []string   // "bus source detail-type" of accepted entries
	details   []string   // Detail of accepted entries
}

type putEventsWire struct {
	Entries []struct {
		Detail, DetailType, Source, EventBusName string
	}
}

func (f *fakeEventBridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("X-Amz-Target") != "AWSEvents.PutEvents" {
		http.Error(w, `{"__type":"UnknownOperationException"}`, http.StatusBadRequest)
		return
	}
	if f.callErr != nil && f.callErr(len(f.calls)+1) {
		f.calls = append(f.calls, nil)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"__type":"InternalException","message":"try again"}`)
		return
	}
	var in putEventsWire
	if err := json.Unmarshal(body, &in); err != nil || len(in.Entries) == 0 || len(in.Entries) > 10 {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"__type":"ValidationException","message":"%d entries"}`, len(in.Entries))
		return
	}
	var ids []string
	var results []map[string]string
	failed := 0
	for _, e := range in.Entries {
		var d struct{ ID string }
		_ = json.Unmarshal([]byte(e.Detail), &d)
		ids = append(ids, d.ID)
		f.attempts[d.ID]++
		code := ""
		if f.fail != nil {
			code = f.fail(d.ID, f.attempts[d.ID])
		}
		if code != "" {
			failed++
			results = append(results, map[string]string{"ErrorCode": code, "ErrorMessage": "refused"})
			continue
		}
		f.published = append(f.published, d.ID)
		f.envelopes = append(f.envelopes, e.EventBusName+" "+e.Source+" "+e.DetailType)
		f.details = append(f.details, e.Detail)
		results = append(results, map[string]string{"EventId": fmt.Sprintf("eb-%d", len(f.published))})
	}
	f.calls = append(f.calls, ids)
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(map[string]any{"FailedEntryCount": failed, "Entries": results})
}

// newFakeEventBridge serves a fake and returns the real SDK client for it,
// without the SDK's own retries so the publisher's are what is tested.
func newFakeEventBridge(t testing.TB) (*fakeEventBridge, *eventbridge.Client) {
	t.Helper()
	f := &fakeEventBridge{attempts: map[string]int{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	client := eventbridge.New(eventbridge.Options{
		Region:       "eu-west-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}),
		Retryer: aws.NopRetryer{},
	})
	return f, client
}
