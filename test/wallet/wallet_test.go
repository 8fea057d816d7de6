package wallet_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/idempotency/idemhttp"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/test/wallet"
)

// env is one test's wallets table: on the embedded engine, or against
// DYNAMODB_ENDPOINT when it is set (the table is deleted afterwards).
type env struct {
	db       *dynamodb.Client
	table    string
	svc      *wallet.Service
	handler  http.Handler
	now      atomic.Int64
	requests ddbtest.Counter
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{}
	e.now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, e.now.Load()) }
	e.table = ddbtest.TableName("wallets")
	var eng *ddblocal.Engine
	e.db, eng = ddbtest.Client(t, []func(*ddblocal.Options){func(o *ddblocal.Options) { o.Clock = clock }}, e.requests.Option)
	if eng == nil {
		ddbtest.DeleteAfter(t, e.db, e.table)
	}
	e.svc = wallet.New(e.db, e.table, func(o *wallet.Options) { o.Clock, o.Expiry = clock, time.Hour })
	ctx := context.Background()
	if err := e.svc.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"alice", "bob"} {
		if err := e.svc.Open(ctx, w, money.Amount{Minor: 10_000, Currency: "EUR"}); err != nil {
			t.Fatal(err)
		}
	}
	e.handler = e.svc.Handler()
	e.requests.Reset()
	return e
}

func (e *env) post(key, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/transfers", strings.NewReader(body))
	r.Header.Set("X-Caller", "alice")
	r.Header.Set(idemhttp.KeyHeader, `"`+key+`"`)
	w := httptest.NewRecorder()
	e.handler.ServeHTTP(w, r)
	return w
}

func (e *env) balances(t *testing.T) string {
	t.Helper()
	var out []string
	for _, w := range []string{"alice", "bob"} {
		b, err := e.svc.Balance(context.Background(), w)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b.String())
	}
	return strings.Join(out, " / ")
}

// transfers counts the transfer items in alice's partition.
func (e *env) transfers(t *testing.T) int {
	t.Helper()
	out, err := e.db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String(e.table), ConsistentRead: aws.Bool(true),
		KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :t)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":p": &types.AttributeValueMemberS{Value: wallet.WalletPrefix + "alice"}, ":t": &types.AttributeValueMemberS{Value: wallet.TransferPrefix}}})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.Items)
}

const pay = `{"from":"alice","to":"bob","amount":2500,"currency":"EUR"}`

func TestConcurrentDuplicates(t *testing.T) {
	e := newEnv(t)
	const n = 100
	answers := make([]*httptest.ResponseRecorder, n)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() { defer wg.Done(); answers[i] = e.post("dup", pay) }()
	}
	wg.Wait()
	fresh, replays := 0, 0
	for _, a := range answers {
		if a.Code != http.StatusCreated {
			t.Fatalf("status %d: %s", a.Code, a.Body)
		}
		if a.Body.String() != answers[0].Body.String() {
			t.Fatalf("bodies differ:\n%s\n%s", a.Body, answers[0].Body)
		}
		if a.Header().Get(idemhttp.ReplayedHeader) == "true" {
			replays++
		} else {
			fresh++
		}
	}
	if fresh != 1 || replays != n-1 {
		t.Errorf("%d fresh answers and %d replays, want 1 and %d", fresh, replays, n-1)
	}
	if got, want := e.balances(t), "75.00 EUR / 125.00 EUR"; got != want {
		t.Errorf("balances = %s, want %s (one effect)", got, want)
	}
	if got := e.transfers(t); got != 1 {
		t.Errorf("%d transfer items, want 1", got)
	}
}

func TestRequestsPerCall(t *testing.T) {
	e := newEnv(t)
	for _, step := range []string{"first call", "replay"} {
		e.requests.Reset()
		if w := e.post("once", pay); w.Code != http.StatusCreated {
			t.Fatalf("%s: %d %s", step, w.Code, w.Body)
		}
		if got := e.requests.Snapshot(); got["TransactWriteItems"] != 1 || len(got) != 1 {
			t.Errorf("%s: requests %v, want exactly 1 TransactWriteItems", step, got)
		}
	}
}

func TestChangedPayloadWritesNothing(t *testing.T) {
	e := newEnv(t)
	first := e.post("k", pay)
	before := e.balances(t)
	e.requests.Reset()
	w := e.post("k", strings.Replace(pay, "2500", "2600", 1))
	if w.Code != http.StatusUnprocessableEntity || w.Header().Get("Content-Type") != "application/problem+json" {
		t.Errorf("changed payload: %d %s, want 422 problem+json", w.Code, w.Body)
	}
	if got := e.requests.Snapshot(); got["TransactWriteItems"] != 1 || len(got) != 1 {
		t.Errorf("changed payload: requests %v, want the 1 failed TransactWriteItems", got)
	}
	if after := e.balances(t); after != before || e.transfers(t) != 1 || first.Code != http.StatusCreated {
		t.Errorf("balances %s -> %s, %d transfers; want unchanged and 1", before, after, e.transfers(t))
	}
}

func TestExpiredKeyRunsAgain(t *testing.T) {
	e := newEnv(t)
	first := e.post("k", pay)
	e.now.Add(int64(time.Hour + 2*time.Second))
	again := e.post("k", pay)
	if first.Code != http.StatusCreated || again.Code != http.StatusCreated || again.Header().Get(idemhttp.ReplayedHeader) != "" {
		t.Fatalf("first %d, after expiry %d %v; want a second fresh run", first.Code, again.Code, again.Header())
	}
	if again.Body.String() == first.Body.String() {
		t.Error("the expired key replayed the old body")
	}
	if got, want := e.balances(t), "50.00 EUR / 150.00 EUR"; got != want || e.transfers(t) != 2 {
		t.Errorf("balances = %s with %d transfers, want %s and 2", got, e.transfers(t), want)
	}
}

func TestRefusals(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name, body string
		status     int
	}{
		{"overdraft", `{"from":"alice","to":"bob","amount":1000000,"currency":"EUR"}`, http.StatusConflict},
		{"unknown payee", `{"from":"alice","to":"carol","amount":1,"currency":"EUR"}`, http.StatusNotFound},
		{"other currency", `{"from":"alice","to":"bob","amount":1,"currency":"USD"}`, http.StatusConflict},
		{"zero amount", `{"from":"alice","to":"bob","amount":0,"currency":"EUR"}`, http.StatusBadRequest},
		{"to self", `{"from":"alice","to":"alice","amount":1,"currency":"EUR"}`, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if w := e.post("r-"+tt.name, tt.body); w.Code != tt.status {
				t.Errorf("%d %s, want %d", w.Code, w.Body, tt.status)
			}
		})
	}
	if got, want := e.balances(t), "100.00 EUR / 100.00 EUR"; got != want || e.transfers(t) != 0 {
		t.Errorf("balances = %s with %d transfers after refusals, want %s and none", got, e.transfers(t), want)
	}
}
