package idemhttp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddbtest"
	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemhttp"
)

func TestParseKey(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`"8e03978e-40d5"`, "8e03978e-40d5", true},
		{`8e03978e-40d5`, "8e03978e-40d5", true},
		{`"a \"quoted\" \\ key"`, `a "quoted" \ key`, true},
		{`""`, "", false},
		{`"open`, "", false},
		{`"a"b"`, "", false},
		{`"bad\escape"`, "", false},
		{``, "", false},
	}
	for _, tt := range tests {
		got, err := idemhttp.ParseKey(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseKey(%s) = %q, %v; want %q ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// counterTable is a table keyed id/kind with TTL on purge_at (another
// team's names) on the engine or DYNAMODB_ENDPOINT, holding one counter.
func counterTable(t *testing.T) (*idempotency.Table, *dynamodb.Client) {
	t.Helper()
	db, _ := ddbtest.Client(t, nil)
	table := ddbtest.TableName("counters")
	ddbtest.DeleteAfter(t, db, table)
	if err := idempotency.CreateTable(context.Background(), db, table, giftNames, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	return idempotency.NewTable(db, table, func(o *idempotency.Options) { o.Attributes = giftNames }), db
}

// bump plans an ADD on one counter item of table (keys id/kind).
func bump(table string) idemhttp.PlanFunc {
	return func(ctx context.Context, c idemhttp.Call) (idemhttp.Plan, error) {
		if strings.Contains(string(c.Body), "refuse") {
			return idemhttp.Plan{}, errors.New("refused by the plan")
		}
		return idemhttp.Plan{Effect: func(now time.Time) (*idempotency.Effect, error) {
			eff := &idempotency.Effect{Status: http.StatusCreated, Body: map[string]string{"by": c.Caller, "at": now.Format(time.RFC3339Nano)}}
			eff.Items.Add("counter", types.TransactWriteItem{Update: &types.Update{TableName: aws.String(table),
				Key:              map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "counter"}, "kind": &types.AttributeValueMemberS{Value: "counter"}},
				UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}})
			return eff, nil
		}}, nil
	}
}

func byHeader(r *http.Request) (string, error) {
	if u := r.Header.Get("X-User"); u != "" {
		return u, nil
	}
	return "", errors.New("no X-User")
}

func post(t *testing.T, h http.Handler, user, key, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/counter", strings.NewReader(body))
	if user != "" {
		r.Header.Set("X-User", user)
	}
	if key != "-" {
		r.Header.Set(idemhttp.KeyHeader, key)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestTransactional(t *testing.T) {
	records, _ := counterTable(t)
	h := idemhttp.Transactional(records, byHeader, bump(records.Name()))
	first := post(t, h, "ann", `"k1"`, `{"a":1}`)
	steps := []struct {
		name, user, key, body string
		status                int
		replayed              bool
	}{
		{"replay", "ann", `"k1"`, `{ "a": 1 }`, 201, true},
		{"other payload", "ann", `"k1"`, `{"a":2}`, 422, false},
		{"other caller, same key", "bob", `"k1"`, `{"a":1}`, 201, false},
		{"missing key", "ann", "-", `{"a":1}`, 400, false},
		{"invalid key", "ann", `"a` + "\t" + `b"`, `{"a":1}`, 400, false},
		{"not JSON", "ann", `"k2"`, `{`, 400, false},
		{"no caller", "", `"k3"`, `{}`, 401, false},
		{"plan refuses", "ann", `"k4"`, `{"refuse":true}`, 400, false},
	}
	if first.Code != 201 || first.Header().Get(idemhttp.ReplayedHeader) != "" {
		t.Fatalf("first = %d %v", first.Code, first.Header())
	}
	for _, st := range steps {
		w := post(t, h, st.user, st.key, st.body)
		replayed := w.Header().Get(idemhttp.ReplayedHeader) == "true"
		if w.Code != st.status || replayed != st.replayed {
			t.Errorf("%s: %d replayed=%v (%s), want %d replayed=%v", st.name, w.Code, replayed, w.Body, st.status, st.replayed)
		}
		if st.replayed && w.Body.String() != first.Body.String() {
			t.Errorf("%s: body %s, want %s", st.name, w.Body, first.Body)
		}
		if w.Code >= 400 && w.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: Content-Type %q", st.name, w.Header().Get("Content-Type"))
		}
	}
}

func TestExternal(t *testing.T) {
	records, _ := counterTable(t)
	var calls atomic.Int32
	release := make(chan struct{})
	entered := make(chan string, 1)
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		entered <- idemhttp.ForwardKey(r.Context())
		<-release
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, `{"sent":%s}`, body)
	})
	h := idemhttp.External(records, byHeader, slow, func(o *idemhttp.Options) { o.Window = time.Minute })
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- post(t, h, "ann", `"e1"`, `{"to":"x"}`) }()
	if fk := <-entered; len(fk) != 64 {
		t.Errorf("ForwardKey = %q, want the 64-digit scoped hash", fk)
	}
	dup := post(t, h, "ann", `"e1"`, `{"to":"x"}`)
	if dup.Code != http.StatusConflict || dup.Header().Get("Retry-After") == "" {
		t.Errorf("duplicate in flight: %d %v %s, want 409 with Retry-After", dup.Code, dup.Header(), dup.Body)
	}
	close(release)
	first := <-done
	again := post(t, h, "ann", `"e1"`, `{"to":"x"}`)
	if first.Code != 202 || again.Code != 202 || again.Body.String() != first.Body.String() || again.Header().Get(idemhttp.ReplayedHeader) != "true" {
		t.Errorf("first %d %s, replay %d %s %v", first.Code, first.Body, again.Code, again.Body, again.Header())
	}
	if calls.Load() != 1 {
		t.Errorf("handler ran %d times, want 1", calls.Load())
	}
}

func TestTransactionalLambda(t *testing.T) {
	records, _ := counterTable(t)
	h := idemhttp.TransactionalLambda(records, bump(records.Name()))
	ev := func(sub, key, body string) events.APIGatewayV2HTTPRequest {
		e := events.APIGatewayV2HTTPRequest{RawPath: "/counter", Body: body, Headers: map[string]string{}}
		e.RequestContext.HTTP.Method = http.MethodPost
		if sub != "" {
			e.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
				JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{Claims: map[string]string{"sub": sub, "iss": "https://issuer"}}}
		}
		if key != "" {
			e.Headers["idempotency-key"] = key
		}
		return e
	}
	ctx := context.Background()
	first, _ := h(ctx, ev("ann", `"k"`, `{}`))
	again, _ := h(ctx, ev("ann", `"k"`, `{}`))
	reused, _ := h(ctx, ev("ann", `"k"`, `{"x":1}`))
	missing, _ := h(ctx, ev("ann", "", `{}`))
	anon, _ := h(ctx, ev("", `"k"`, `{}`))
	got := fmt.Sprintf("%d %d %s %d %d %d", first.StatusCode, again.StatusCode, again.Headers[idemhttp.ReplayedHeader], reused.StatusCode, missing.StatusCode, anon.StatusCode)
	if got != "201 201 true 422 400 401" || again.Body != first.Body {
		t.Errorf("statuses %s (bodies %s / %s), want 201 201 true 422 400 401", got, first.Body, again.Body)
	}
}

func TestExternalReleasesOn5xx(t *testing.T) {
	records, _ := counterTable(t)
	var calls atomic.Int32
	failing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, "processor down", http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"ok":true}`)
	})
	h := idemhttp.External(records, byHeader, failing)
	first := post(t, h, "ann", `"x"`, `{}`)
	retry := post(t, h, "ann", `"x"`, `{}`)
	replay := post(t, h, "ann", `"x"`, `{}`)
	got := fmt.Sprintf("%d %d %d %s", first.Code, retry.Code, replay.Code, replay.Header().Get(idemhttp.ReplayedHeader))
	if got != "502 201 201 true" || calls.Load() != 2 {
		t.Errorf("statuses %s after %d calls, want 502 201 201 true after 2 (a 5xx releases the key)", got, calls.Load())
	}
}

func TestExternalLambda(t *testing.T) {
	records, _ := counterTable(t)
	var calls atomic.Int32
	next := func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		calls.Add(1)
		return events.APIGatewayV2HTTPResponse{StatusCode: 202, Body: `{"forwarded":"` + idemhttp.ForwardKey(ctx)[:8] + `"}`}, nil
	}
	h := idemhttp.ExternalLambda(records, next)
	ev := events.APIGatewayV2HTTPRequest{RawPath: "/send", Body: `{}`, Headers: map[string]string{"Idempotency-Key": `"m1"`}}
	ev.RequestContext.HTTP.Method = http.MethodPost
	ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
		IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{UserARN: "arn:aws:iam::1:user/a"}}
	first, _ := h(context.Background(), ev)
	again, _ := h(context.Background(), ev)
	if first.StatusCode != 202 || again.StatusCode != 202 || again.Body != first.Body || again.Headers[idemhttp.ReplayedHeader] != "true" || calls.Load() != 1 {
		t.Errorf("first %d %s, again %d %s %v, %d calls; want one call and a replay", first.StatusCode, first.Body, again.StatusCode, again.Body, again.Headers, calls.Load())
	}
}

// ExternalLambda's window is the invocation's remaining time by default,
// and the function's headers are kept.
func TestExternalLambdaWindowAndHeaders(t *testing.T) {
	records, _ := counterTable(t)
	entered, release := make(chan struct{}), make(chan struct{})
	next := func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		entered <- struct{}{}
		<-release
		return events.APIGatewayV2HTTPResponse{StatusCode: 201, Body: "sent",
			Headers: map[string]string{"Content-Type": "text/plain", "Location": "/messages/m1"}}, nil
	}
	h := idemhttp.ExternalLambda(records, next)
	ev := events.APIGatewayV2HTTPRequest{RawPath: "/send", Body: `{}`, Headers: map[string]string{"Idempotency-Key": `"w1"`}}
	ev.RequestContext.HTTP.Method = http.MethodPost
	ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
		IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{UserARN: "arn:aws:iam::1:user/a"}}
	ctx, cancel := context.WithTimeout(context.Background(), 7*time.Minute) // as a Lambda's deadline
	defer cancel()
	done := make(chan events.APIGatewayV2HTTPResponse)
	go func() { r, _ := h(ctx, ev); done <- r }()
	<-entered
	dup, _ := h(context.Background(), ev)
	ra, _ := strconv.Atoi(dup.Headers["Retry-After"])
	if dup.StatusCode != http.StatusConflict || ra < 6*60 || ra > 7*60+1 {
		t.Errorf("duplicate: %d Retry-After %q, want 409 and about 420 s (the remaining time)", dup.StatusCode, dup.Headers["Retry-After"])
	}
	close(release)
	first := <-done
	again, _ := h(context.Background(), ev)
	for _, r := range []events.APIGatewayV2HTTPResponse{first, again} {
		if r.StatusCode != 201 || r.Body != "sent" || r.Headers["Content-Type"] != "text/plain" || r.Headers["Location"] != "/messages/m1" {
			t.Errorf("answer %d %q %v, want 201 sent text/plain /messages/m1", r.StatusCode, r.Body, r.Headers)
		}
	}
	if again.Headers[idemhttp.ReplayedHeader] != "true" {
		t.Errorf("second answer not a replay: %v", again.Headers)
	}
}
