package idemhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemhttp"
)

func ExampleTransactional() {
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	names := idempotency.Attributes{PartitionKey: "id", SortKey: "kind", TTL: "purge_at"}
	idempotency.CreateTable(context.Background(), db, "counters", names, time.Minute)
	records := idempotency.NewTable(db, "counters", func(o *idempotency.Options) {
		o.Attributes = names
	})
	caller := func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }
	h := idemhttp.Transactional(records, caller, bump("counters")) // bump: an ADD on one counter item

	for _, req := range []struct{ key, body string }{{`"k1"`, `{"a":1}`}, {`"k1"`, `{"a":1}`}, {`"k1"`, `{"a":2}`}, {"", `{}`}} {
		r := httptest.NewRequest(http.MethodPost, "/counter", strings.NewReader(req.body))
		r.Header.Set("X-User", "ann")
		if req.key != "" {
			r.Header.Set(idemhttp.KeyHeader, req.key)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Println(w.Code, "replayed:", w.Header().Get(idemhttp.ReplayedHeader) == "true")
	}
	// Output:
	// 201 replayed: false
	// 201 replayed: true
	// 422 replayed: false
	// 400 replayed: false
}

// An external call (an e-mail provider) behind net/http: the handler's
// status, Content-Type, Location and body are stored and replayed; a body
// rejected before anything was sent (400) is not stored, so the corrected
// retry with the same key runs.
func ExampleExternal() {
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	names := idempotency.Attributes{PartitionKey: "id", SortKey: "kind", TTL: "purge_at"}
	db.CreateTable(context.Background(), idempotency.CreateTableInput("giftcards", names))
	records := idempotency.NewTable(db, "giftcards", func(o *idempotency.Options) { o.Attributes = names })

	email := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ To string }
		if json.NewDecoder(r.Body).Decode(&in) != nil || !strings.Contains(in.To, "@") {
			http.Error(w, "to: an address is required", http.StatusBadRequest)
			return
		}
		// provider.Send(in.To, idemhttp.ForwardKey(r.Context()))
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Location", "/messages/m1")
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprint(w, "queued")
	})
	mux := http.NewServeMux()
	caller := func(r *http.Request) (string, error) { return r.Header.Get("X-User"), nil }
	mux.Handle("POST /cards/{code}/email", idemhttp.External(records, caller, email))
	for _, body := range []string{`{"to":""}`, `{"to":"ann@example.com"}`, `{"to":"ann@example.com"}`} {
		r := httptest.NewRequest(http.MethodPost, "/cards/GC1/email", strings.NewReader(body))
		r.Header.Set("X-User", "ann")
		r.Header.Set(idemhttp.KeyHeader, `"k1"`)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		fmt.Printf("%d %s %q replayed=%q\n", w.Code, w.Header().Get("Content-Type"), w.Header().Get("Location"), w.Header().Get(idemhttp.ReplayedHeader))
	}
	// Output:
	// 400 text/plain; charset=utf-8 "" replayed=""
	// 202 text/plain "/messages/m1" replayed=""
	// 202 text/plain "/messages/m1" replayed="true"
}

// An API Gateway HTTP API v2 route whose function calls an external
// system: the in-progress window is the invocation's remaining time, and
// the function's status, Content-Type, Location and body are replayed.
func ExampleExternalLambda() {
	eng := ddblocal.New()
	defer eng.Close()
	db := eng.Client()
	names := idempotency.Attributes{PartitionKey: "id", SortKey: "kind", TTL: "purge_at"}
	idempotency.CreateTable(context.Background(), db, "giftcards", names, time.Minute)
	records := idempotency.NewTable(db, "giftcards", func(o *idempotency.Options) { o.Attributes = names })

	send := func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		// provider.Send(req.Body, idemhttp.ForwardKey(ctx))
		return events.APIGatewayV2HTTPResponse{StatusCode: 202, Body: "queued",
			Headers: map[string]string{"Content-Type": "text/plain", "Location": "/messages/m1"}}, nil
	}
	h := idemhttp.ExternalLambda(records, send, func(o *idemhttp.Options) { o.CheckTable = true })
	// lambda.Start(h)
	ev := events.APIGatewayV2HTTPRequest{RawPath: "/cards/GC1/email", Body: `{"to":"ann@example.com"}`,
		Headers: map[string]string{"idempotency-key": `"k1"`}}
	ev.RequestContext.HTTP.Method = http.MethodPost
	ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
		JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{Claims: map[string]string{"iss": "https://issuer", "sub": "ann"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // as Lambda's deadline
	defer cancel()
	for range 2 {
		r, _ := h(ctx, ev)
		fmt.Printf("%d %s %s %s replayed=%q\n", r.StatusCode, r.Headers["Content-Type"], r.Headers["Location"], r.Body, r.Headers[idemhttp.ReplayedHeader])
	}
	// Output:
	// 202 text/plain /messages/m1 queued replayed=""
	// 202 text/plain /messages/m1 queued replayed="true"
}
