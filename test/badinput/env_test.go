package badinput_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/test/authz"
)

const table = "oncetable-badinput"

// cursorSecret signs the API's cursors; the tests sign cursors with it too,
// as anyone who learnt or derived the secret could.
const cursorSecret = "badinput cursor secret of 32+ bytes"

// env is the API behind the local runner's net/http handler, on a fresh
// embedded engine with a few users, orders and ledger entries.
type env struct {
	db *dynamodb.Client
	h  http.Handler
}

func newEnv(t testing.TB) *env {
	t.Helper()
	eng := ddblocal.New(func(o *ddblocal.Options) { o.TTLSweepInterval = -1 })
	t.Cleanup(func() { eng.Close() })
	db := eng.Client()
	if err := provision.EnsureTable(context.Background(), db, table); err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(db, httpapi.Config{Table: table, Log: io.Discard, Metrics: io.Discard,
		CursorSecret: []byte(cursorSecret), Auth: localrun.OperatorAuth(httpapi.Auth{})})
	e := &env{db: db, h: localrun.Handler(api.Handle, nil)}
	for _, s := range []struct {
		status       int
		method, path string
		key, body    string
	}{
		{201, "POST", "/users", "", `{"userId":"alice","name":"Alice","email":"alice@example.com"}`},
		{201, "POST", "/users", "", `{"userId":"bob","name":"Bob","email":"bob@example.com"}`},
		{201, "POST", "/products", "", `{"productId":"mug","name":"Mug","price":1250,"currency":"EUR"}`},
		{201, "POST", "/users/alice/credits", "seed-a1", `{"amount":10000,"currency":"EUR"}`},
		{201, "POST", "/users/alice/credits", "replay-key", `{"amount":300,"currency":"EUR"}`},
		{201, "POST", "/users/bob/credits", "seed-b1", `{"amount":500,"currency":"EUR"}`},
		{201, "POST", "/users/bob/credits", "seed-b2", `{"amount":70,"currency":"EUR"}`},
		{201, "POST", "/users/alice/orders", "seed-o1", `{"orderId":"o-open","currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":2500}]}`},
		{201, "POST", "/users/alice/orders", "seed-o2", `{"orderId":"o-paid","currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":100}]}`},
		{201, "POST", "/orders/o-paid/payments", "seed-c1", `{"amount":100,"currency":"EUR"}`},
		{200, "POST", "/orders/o-paid/settle", "seed-s1", ``},
		{201, "POST", "/users/bob/orders", "seed-o3", `{"orderId":"o-big","currency":"EUR","items":[{"productId":"p1","quantity":1,"unitPrice":90000}]}`},
		{201, "POST", "/orders/o-big/payments", "seed-c3", `{"amount":90000,"currency":"EUR"}`},
	} {
		hdr := http.Header{}
		if s.key != "" {
			hdr.Set("Idempotency-Key", s.key)
		}
		if s.body != "" {
			hdr.Set("Content-Type", "application/json")
		}
		if r := e.do(s.method, s.path, hdr, []byte(s.body)); r.status != s.status {
			t.Fatalf("seed %s %s: %d %s, want %d", s.method, s.path, r.status, r.body, s.status)
		}
	}
	return e
}

type response struct {
	status int
	typ    string // problem type, for problem+json responses
	body   string
}

func (e *env) do(method, path string, hdr http.Header, body []byte) response {
	req, err := http.NewRequest(method, "http://api.local"+path, bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.RemoteAddr = "127.0.0.1:50000"
	for k, v := range hdr {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	r := response{status: rec.Code, body: rec.Body.String()}
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/problem+json") {
		var p struct{ Type string }
		if json.Unmarshal(rec.Body.Bytes(), &p) == nil {
			r.typ = p.Type
		}
	}
	return r
}

// snapshot is the whole table, canonically encoded (authz.Snapshot).
func (e *env) snapshot(t testing.TB) string {
	t.Helper()
	s, err := authz.Snapshot(context.Background(), e.db, table)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// nextCursor lists one page of a ledger and returns its cursor.
func (e *env) nextCursor(t testing.TB, user string) string {
	t.Helper()
	r := e.do("GET", "/users/"+user+"/ledger?limit=1", nil, nil)
	var page struct{ NextCursor string }
	if r.status != 200 || json.Unmarshal([]byte(r.body), &page) != nil || page.NextCursor == "" {
		t.Fatalf("ledger of %s: %d %s, want a page with a cursor", user, r.status, r.body)
	}
	return page.NextCursor
}

// wire sends raw bytes to a real server (the runner's handler behind
// localrun.ProblemListener), for requests net/http itself refuses.
func (e *env) wire(raw string) response {
	srv := httptest.NewUnstartedServer(e.h)
	srv.Listener = localrun.ProblemListener(srv.Listener)
	srv.Start()
	defer srv.Close()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		panic(err)
	}
	defer c.Close()
	io.WriteString(c, raw)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := response{status: resp.StatusCode, body: string(b)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
		var p struct{ Type string }
		if json.Unmarshal(b, &p) == nil {
			r.typ = p.Type
		}
	}
	return r
}
