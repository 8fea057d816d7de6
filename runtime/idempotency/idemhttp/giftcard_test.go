package idemhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
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
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemhttp"
)

// The gift-card service of issue 23: another team's table (keys id/kind,
// TTL purge_at), net/http, one transactional route (redeem: a guarded
// balance update) and one external route (send the card by e-mail through
// a provider). It runs on the embedded engine, or on DYNAMODB_ENDPOINT.

var giftNames = idempotency.Attributes{PartitionKey: "id", SortKey: "kind", TTL: "purge_at"}

type giftcards struct {
	db      *dynamodb.Client
	table   string
	records *idempotency.Table
	now     atomic.Int64
	mail    *mailer
	mux     *http.ServeMux
}

// mailer is the e-mail provider: it counts sends, deduplicates by the
// forwarded key when dedupe is set, and can be held mid-call.
type mailer struct {
	mu    sync.Mutex
	sent  int
	hold  chan struct{}
	enter chan struct{}
}

func (m *mailer) send(to string) (string, error) {
	if m.enter != nil {
		m.enter <- struct{}{}
		<-m.hold
	}
	if strings.HasSuffix(to, "@suppressed.example") {
		return "", errSuppressed
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent++
	return "msg-" + strconv.Itoa(m.sent), nil
}

var errSuppressed = errors.New("recipient suppressed")

func newGiftcards(t *testing.T, opts ...func(*idemhttp.Options)) *giftcards {
	t.Helper()
	g := &giftcards{table: ddbtest.TableName("giftcards"), mail: &mailer{}}
	g.now.Store(time.Now().Truncate(time.Second).UnixNano())
	clock := func() time.Time { return time.Unix(0, g.now.Load()) }
	g.db, _ = ddbtest.Client(t, []func(*ddblocal.Options){func(o *ddblocal.Options) { o.Clock = clock }})
	ctx := context.Background()
	ddbtest.DeleteAfter(t, g.db, g.table)
	if err := idempotency.CreateTable(ctx, g.db, g.table, giftNames, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	g.card(t, "GC1", 100)
	g.records = idempotency.NewTable(g.db, g.table, func(o *idempotency.Options) {
		o.Attributes, o.Clock = giftNames, clock
	})
	g.mux = http.NewServeMux()
	g.mux.Handle("POST /cards/{code}/redeem", idemhttp.Transactional(g.records, byHeader, g.redeem, opts...))
	g.mux.Handle("POST /cards/{code}/email", idemhttp.External(g.records, byHeader, http.HandlerFunc(g.email), opts...))
	return g
}

func (g *giftcards) card(t *testing.T, code string, balance int) {
	t.Helper()
	if _, err := g.db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(g.table), Item: map[string]types.AttributeValue{
		"id": &types.AttributeValueMemberS{Value: "card#" + code}, "kind": &types.AttributeValueMemberS{Value: "card"},
		"balance": &types.AttributeValueMemberN{Value: strconv.Itoa(balance)}}}); err != nil {
		t.Fatal(err)
	}
}

func (g *giftcards) balance(t *testing.T, code string) string {
	t.Helper()
	out, err := g.db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(g.table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "card#" + code}, "kind": &types.AttributeValueMemberS{Value: "card"}}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item["balance"].(*types.AttributeValueMemberN).Value
}

// redeem plans a guarded debit of the card named in the path (friction 8:
// the plan reads r.PathValue) and a redemption item under a fresh id, in a
// partition of its own: the record's place no longer depends on it.
func (g *giftcards) redeem(_ context.Context, c idemhttp.Call) (idemhttp.Plan, error) {
	var in struct {
		Amount int `json:"amount"`
	}
	if err := json.Unmarshal(c.Body, &in); err != nil || in.Amount <= 0 {
		return idemhttp.Plan{}, fmt.Errorf("amount must be a positive integer")
	}
	code := c.Request.PathValue("code")
	id := fmt.Sprintf("rd_%d", time.Now().UnixNano())
	return idemhttp.Plan{Invocation: []string{id}, Effect: func(now time.Time) (*idempotency.Effect, error) {
		eff := &idempotency.Effect{Status: http.StatusCreated,
			Header: http.Header{"Location": {"/redemptions/" + id}},
			Body:   map[string]any{"redemption": id, "card": code, "amount": in.Amount}}
		eff.Items.Add("debit", types.TransactWriteItem{Update: &types.Update{TableName: aws.String(g.table),
			Key:                       map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "card#" + code}, "kind": &types.AttributeValueMemberS{Value: "card"}},
			UpdateExpression:          aws.String("ADD balance :minus"),
			ConditionExpression:       aws.String("balance >= :amount"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":minus": &types.AttributeValueMemberN{Value: strconv.Itoa(-in.Amount)}, ":amount": &types.AttributeValueMemberN{Value: strconv.Itoa(in.Amount)}}}})
		eff.Items.Add("redemption", types.TransactWriteItem{Put: &types.Put{TableName: aws.String(g.table), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: "redemption#" + id}, "kind": &types.AttributeValueMemberS{Value: "redemption"}}}})
		return eff, nil
	}}, nil
}

// email validates the body (400 before anything is sent), calls the
// provider and answers 202 text/plain with a Location; a suppressed
// recipient is a business failure (410), after the provider was asked.
func (g *giftcards) email(w http.ResponseWriter, r *http.Request) {
	var in struct {
		To string `json:"to"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &in); err != nil || !strings.Contains(in.To, "@") {
		http.Error(w, "to: an e-mail address is required", http.StatusBadRequest)
		return
	}
	id, err := g.mail.send(in.To)
	if errors.Is(err, errSuppressed) {
		http.Error(w, "recipient suppressed", http.StatusGone)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Location", "/messages/"+id)
	w.Header().Set("X-Request-Trace", "t-"+id)
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprintf(w, "queued %s for %s", id, in.To)
}

func (g *giftcards) post(ctx context.Context, path, user, key, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("X-User", user)
	if key != "" {
		r.Header.Set(idemhttp.KeyHeader, key)
	}
	w := httptest.NewRecorder()
	g.mux.ServeHTTP(w, r)
	return w
}

// Friction 1: both modes keep and replay status, body and headers.
func TestGiftcardHeaders(t *testing.T) {
	g := newGiftcards(t)
	ctx := context.Background()
	for _, route := range []struct {
		path, body, contentType, location string
	}{
		{"/cards/GC1/redeem", `{"amount":10}`, "application/json", "/redemptions/rd_"},
		{"/cards/GC1/email", `{"to":"ann@example.com"}`, "text/plain; charset=utf-8", "/messages/msg-1"},
	} {
		first := g.post(ctx, route.path, "ann", `"h-`+route.path+`"`, route.body)
		again := g.post(ctx, route.path, "ann", `"h-`+route.path+`"`, route.body)
		for _, w := range []*httptest.ResponseRecorder{first, again} {
			if ct := w.Header().Get("Content-Type"); ct != route.contentType {
				t.Errorf("%s: Content-Type %q, want %q", route.path, ct, route.contentType)
			}
			if loc := w.Header().Get("Location"); !strings.HasPrefix(loc, route.location) {
				t.Errorf("%s: Location %q, want %s...", route.path, loc, route.location)
			}
		}
		if again.Code != first.Code || again.Body.String() != first.Body.String() || again.Header().Get("Location") != first.Header().Get("Location") ||
			again.Header().Get(idemhttp.ReplayedHeader) != "true" {
			t.Errorf("%s: replay %d %v %s, first %d %v %s", route.path, again.Code, again.Header(), again.Body, first.Code, first.Header(), first.Body)
		}
	}
	if got := g.post(ctx, "/cards/GC1/email", "ann", `"h-/cards/GC1/email"`, `{"to":"ann@example.com"}`); got.Header().Get("X-Request-Trace") != "" {
		t.Errorf("replay carries X-Request-Trace %q, which is not on the allow-list", got.Header().Get("X-Request-Trace"))
	}
}

// Options.Headers extends what the external mode stores.
func TestGiftcardHeaderAllowList(t *testing.T) {
	g := newGiftcards(t, func(o *idemhttp.Options) { o.Headers = []string{"X-Request-Trace"} })
	ctx := context.Background()
	first := g.post(ctx, "/cards/GC1/email", "ann", `"trace"`, `{"to":"ann@example.com"}`)
	again := g.post(ctx, "/cards/GC1/email", "ann", `"trace"`, `{"to":"ann@example.com"}`)
	if first.Header().Get("X-Request-Trace") == "" || again.Header().Get("X-Request-Trace") != first.Header().Get("X-Request-Trace") {
		t.Errorf("X-Request-Trace first %q, replay %q; want it kept", first.Header().Get("X-Request-Trace"), again.Header().Get("X-Request-Trace"))
	}
}

// Friction 2 and the core guarantee: 50 concurrent duplicates, whose plans
// each choose a fresh redemption id, give one effect and 49 identical
// replays; another payload is 422.
func TestGiftcardKeyIdentity(t *testing.T) {
	g := newGiftcards(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	answers := make([]*httptest.ResponseRecorder, 50)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = g.post(ctx, "/cards/GC1/redeem", "ann", `"once"`, `{"amount":7}`)
		}()
	}
	wg.Wait()
	replays := 0
	for _, w := range answers {
		if w.Code != http.StatusCreated || w.Body.String() != answers[0].Body.String() || w.Header().Get("Location") != answers[0].Header().Get("Location") {
			t.Fatalf("answers differ: %d %s %v vs %d %s", w.Code, w.Body, w.Header(), answers[0].Code, answers[0].Body)
		}
		if w.Header().Get(idemhttp.ReplayedHeader) == "true" {
			replays++
		}
	}
	if replays != 49 || g.balance(t, "GC1") != "93" {
		t.Errorf("%d replays, balance %s; want 49 and 93", replays, g.balance(t, "GC1"))
	}
	if w := g.post(ctx, "/cards/GC1/redeem", "ann", `"once"`, `{"amount":8}`); w.Code != http.StatusUnprocessableEntity {
		t.Errorf("another payload: %d %s, want 422", w.Code, w.Body)
	}
	if w := g.post(ctx, "/cards/GC1/redeem?note=x", "ann", `"once"`, `{"amount":7}`); w.Code != http.StatusUnprocessableEntity {
		t.Errorf("another query string: %d %s, want 422 (the query is part of the fingerprint)", w.Code, w.Body)
	}
	if w := g.post(ctx, "/cards/GC1/redeem", "bob", `"once"`, `{"amount":7}`); w.Code != http.StatusCreated || w.Header().Get(idemhttp.ReplayedHeader) != "" {
		t.Errorf("another caller, same key: %d %v, want a first call", w.Code, w.Header())
	}
}

// Friction 3: a request rejected before the effect started is not stored;
// a business failure after it is, and a transactional cancellation is not.
func TestGiftcardStoredAnswers(t *testing.T) {
	g := newGiftcards(t)
	ctx := context.Background()
	steps := []struct {
		name, path, key, body string
		status                int
		replayed              bool
	}{
		{"invalid body", "/cards/GC1/email", `"fixme"`, `{"to":""}`, 400, false},
		{"fixed body, same key", "/cards/GC1/email", `"fixme"`, `{"to":"ann@example.com"}`, 202, false},
		{"replay", "/cards/GC1/email", `"fixme"`, `{"to":"ann@example.com"}`, 202, true},
		{"suppressed (business failure)", "/cards/GC1/email", `"gone"`, `{"to":"x@suppressed.example"}`, 410, false},
		{"suppressed, replayed", "/cards/GC1/email", `"gone"`, `{"to":"x@suppressed.example"}`, 410, true},
		{"overdraft (cancelled)", "/cards/GC1/redeem", `"big"`, `{"amount":500}`, 409, false},
	}
	for _, st := range steps {
		w := g.post(ctx, st.path, "ann", st.key, st.body)
		if w.Code != st.status || (w.Header().Get(idemhttp.ReplayedHeader) == "true") != st.replayed {
			t.Errorf("%s: %d %v %s, want %d replayed=%v", st.name, w.Code, w.Header(), w.Body, st.status, st.replayed)
		}
	}
	g.card(t, "GC1", 1000)
	if w := g.post(ctx, "/cards/GC1/redeem", "ann", `"big"`, `{"amount":500}`); w.Code != 201 {
		t.Errorf("after a top-up the cancelled key runs: %d %s", w.Code, w.Body)
	}
	if g.mail.sent != 1 {
		t.Errorf("provider sent %d mails, want 1", g.mail.sent)
	}
}

// Frictions 4 and 9: the in-progress window ends at the request's
// deadline, and Retry-After is measured on the table's clock.
func TestGiftcardWindowFromDeadline(t *testing.T) {
	g := newGiftcards(t)
	g.mail.hold, g.mail.enter = make(chan struct{}), make(chan struct{})
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(10*time.Minute))
	defer cancel()
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- g.post(ctx, "/cards/GC1/email", "ann", `"slow"`, `{"to":"ann@example.com"}`) }()
	<-g.mail.enter
	// The table's clock is 5 minutes behind the wall: Retry-After counts
	// from it, so the window left is about 15 minutes, not 10.
	g.now.Add(int64(-5 * time.Minute))
	dup := g.post(context.Background(), "/cards/GC1/email", "ann", `"slow"`, `{"to":"ann@example.com"}`)
	ra, _ := strconv.Atoi(dup.Header().Get("Retry-After"))
	if dup.Code != http.StatusConflict || ra < 14*60 || ra > 15*60+1 {
		t.Errorf("duplicate in flight: %d Retry-After %q, want 409 and about 900 s", dup.Code, dup.Header().Get("Retry-After"))
	}
	close(g.mail.hold)
	if first := <-done; first.Code != http.StatusAccepted {
		t.Errorf("first: %d %s", first.Code, first.Body)
	}
}

// Friction 5: Table.Check and the adapters' start-up check name the
// option to fix; a misconfigured table writes nothing.
func TestGiftcardCheck(t *testing.T) {
	g := newGiftcards(t)
	ctx := context.Background()
	rep, err := g.records.Check(ctx)
	if err != nil || rep.PartitionKey != "id" || rep.SortKey != "kind" || rep.PartitionKeyType != "S" || !rep.TTLEnabled("purge_at") {
		t.Fatalf("Check = %+v, %v; want id/kind, TTL on purge_at", rep, err)
	}
	wrong := idempotency.NewTable(g.db, g.table) // forgot Options.Attributes
	_, err = wrong.Check(ctx)
	for _, option := range []string{"Options.Attributes.PartitionKey", "Options.Attributes.SortKey", "Options.Attributes.TTL"} {
		if err == nil || !strings.Contains(err.Error(), option) {
			t.Errorf("Check with default names: %v; want it to name %s", err, option)
		}
	}
	var ce *idempotency.ConfigError
	if !errors.As(err, &ce) {
		t.Errorf("Check error %T is not a *ConfigError", err)
	}
	_, err = wrong.Do(ctx, idempotency.Request{Scope: idempotency.Scope{Caller: "ann", Operation: "redeem"}, Key: "k", Fingerprint: "fp"},
		func(time.Time) (*idempotency.Effect, error) { return &idempotency.Effect{Status: 200}, nil })
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "Options.Attributes") {
		t.Errorf("Do with default names: %v; want a ConfigError naming Options.Attributes", err)
	}
	if _, _, err := wrong.Begin(ctx, idempotency.Request{Scope: idempotency.Scope{Caller: "ann", Operation: "email"}, Key: "k", Fingerprint: "fp"}, time.Minute); !errors.As(err, &ce) {
		t.Errorf("Begin with default names: %v; want a ConfigError", err)
	}
	h := idemhttp.Transactional(wrong, byHeader, g.redeem, func(o *idemhttp.Options) { o.CheckTable = true })
	r := httptest.NewRequest(http.MethodPost, "/cards/GC1/redeem", strings.NewReader(`{"amount":1}`))
	r.Header.Set("X-User", "ann")
	r.Header.Set(idemhttp.KeyHeader, `"chk"`)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), "Options.Attributes.PartitionKey") {
		t.Errorf("CheckTable on a misconfigured table: %d %s", w.Code, w.Body)
	}
	if g.balance(t, "GC1") != "100" {
		t.Error("a misconfigured adapter wrote")
	}
}

// Friction 10: the one-call external mode, and requests the library cannot
// keep apart are refused.
func TestGiftcardRun(t *testing.T) {
	g := newGiftcards(t)
	ctx := context.Background()
	req := idempotency.Request{Scope: idempotency.Scope{Caller: "ann", Operation: "email"}, Key: "run-1", Fingerprint: idempotency.FingerprintOf([]byte("ann@example.com"))}
	send := func(ctx context.Context, forwardKey string) (*idempotency.Effect, error) {
		id, err := g.mail.send("ann@example.com")
		if err != nil {
			return nil, err
		}
		return &idempotency.Effect{Status: 202, Header: http.Header{"Location": {"/messages/" + id}}, Body: []byte(id)}, nil
	}
	first, err := g.records.Run(ctx, req, send)
	again, err2 := g.records.Run(ctx, req, send)
	if err != nil || err2 != nil || first.Replayed || !again.Replayed || string(again.Body) != string(first.Body) || again.Header.Get("Location") != "/messages/"+string(first.Body) {
		t.Errorf("Run: first %+v %v, again %+v %v", first, err, again, err2)
	}
	failing := func(context.Context, string) (*idempotency.Effect, error) { return nil, errors.New("provider down") }
	req2 := req
	req2.Key = "run-2"
	if _, err := g.records.Run(ctx, req2, failing); err == nil || err.Error() != "provider down" {
		t.Errorf("failing call: %v", err)
	}
	if r, err := g.records.Run(ctx, req2, send); err != nil || r.Replayed {
		t.Errorf("after a failed call the key is free: %+v, %v", r, err)
	}
	for _, bad := range []idempotency.Request{
		{Scope: idempotency.Scope{Operation: "email"}, Key: "k", Fingerprint: "fp"},
		{Scope: idempotency.Scope{Caller: "ann"}, Key: "k", Fingerprint: "fp"},
		{Scope: idempotency.Scope{Caller: "ann", Operation: "email"}, Key: "k"},
	} {
		if _, err := g.records.Run(ctx, bad, send); !errors.Is(err, idempotency.ErrRequestInvalid) {
			t.Errorf("Run(%+v) = %v, want ErrRequestInvalid", bad, err)
		}
		if _, err := g.records.Do(ctx, bad, nil); !errors.Is(err, idempotency.ErrRequestInvalid) {
			t.Errorf("Do(%+v) = %v, want ErrRequestInvalid", bad, err)
		}
	}
	if _, err := g.records.Run(ctx, idempotency.Request{}, send); !errors.Is(err, idempotency.ErrKeyMissing) || strings.Contains(err.Error(), "header") {
		t.Errorf("no key: %v, want ErrKeyMissing without a word about headers", err)
	}
	if g.mail.sent != 2 {
		t.Errorf("sent %d, want 2", g.mail.sent)
	}
}
