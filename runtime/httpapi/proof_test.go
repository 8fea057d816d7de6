package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/internal/dbtest"
	"github.com/oncetable/oncetable/runtime/store"
)

func (h *harness) must(t *testing.T, status int, method, path, body string, headers map[string]string) events.APIGatewayV2HTTPResponse {
	t.Helper()
	r := h.do(t, method, path, body, headers)
	if r.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.StatusCode, status, r.Body)
	}
	return r
}

func (h *harness) seed(t *testing.T, user string, credit int64, orders map[string]int64) {
	t.Helper()
	h.must(t, 201, "POST", "/users", fmt.Sprintf(`{"userId":%q,"name":"U","email":"u@example.com"}`, user), nil)
	if credit > 0 {
		h.must(t, 201, "POST", "/users/"+user+"/credits", fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, credit), key("seed-credit-"+user))
	}
	for id, total := range orders {
		h.must(t, 201, "POST", "/users/"+user+"/orders",
			fmt.Sprintf(`{"orderId":%q,"currency":"EUR","items":[{"productId":"p","quantity":1,"unitPrice":%d}]}`, id, total), key("seed-order-"+id))
	}
}

// charge charges an order's total, as a settle requires.
func (h *harness) charge(t *testing.T, orderID string, total int64) {
	t.Helper()
	h.must(t, 201, "POST", "/orders/"+orderID+"/payments", fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, total), key("charge-"+orderID))
}

// 100 concurrent identical charges: one payment, 100 identical responses,
// 99 of them replays.
func TestConcurrentIdenticalCharges(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "carol", 0, map[string]int64{"o-c": 4200})
	const n = 100
	resps := make([]events.APIGatewayV2HTTPResponse, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[i], _ = h.api.Handle(context.Background(), event("POST", "/orders/o-c/payments", `{"amount":4200,"currency":"EUR"}`, key("charge-once")))
		}()
	}
	wg.Wait()
	replayed := 0
	for i, r := range resps {
		if r.StatusCode != http.StatusCreated || r.Body != resps[0].Body {
			t.Fatalf("response %d = %d %s, want 201 %s", i, r.StatusCode, r.Body, resps[0].Body)
		}
		if r.Headers["Idempotent-Replayed"] == "true" {
			replayed++
		}
	}
	if replayed != n-1 {
		t.Errorf("replayed = %d, want %d", replayed, n-1)
	}
	ov, err := h.api.Store().Order(context.Background(), "o-c")
	if err != nil || len(ov.Payments) != 1 {
		t.Fatalf("payments of order = %+v, %v; want exactly 1", ov.Payments, err)
	}
	if want := ov.Payments[0].PaymentID; field(t, resps[0].Body, "paymentId") != want {
		t.Errorf("responses name payment %v, stored payment is %s", field(t, resps[0].Body, "paymentId"), want)
	}
}

// 200 concurrent debits never drive the balance negative, and the final
// balance equals credits minus the ledger's debits.
func TestConcurrentDebitsNeverNegative(t *testing.T) {
	for _, conflicts := range []float64{0, 0.2} {
		t.Run(fmt.Sprintf("conflict rate %.1f", conflicts), func(t *testing.T) {
			h := newHarness(t)
			const credit, amount, n = 10_000, 70, 200
			h.seed(t, "dave", credit, nil)
			if h.env.Engine != nil && conflicts > 0 {
				h.env.Engine.SetFaults(h.env.Table, ddblocal.Faults{Seed: 7, TransactionConflictRate: conflicts})
			}
			statuses := make([]int, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, _ := h.api.Handle(context.Background(), event("POST", "/users/dave/debits",
						fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, amount), key(fmt.Sprintf("debit-%d", i))))
					statuses[i] = r.StatusCode
				}()
			}
			wg.Wait()
			if h.env.Engine != nil {
				h.env.Engine.ClearFaults(h.env.Table)
				if conflicts > 0 && !strings.Contains(h.log.String(), `"ConflictRetried":1`) {
					t.Error("injected conflicts were retried without a ConflictRetried metric")
				}
			}
			count := map[int]int{}
			for _, s := range statuses {
				count[s]++
			}
			if count[201] != credit/amount || count[201]+count[402]+count[503] != n {
				t.Errorf("statuses = %v, want %d x 201 and the rest 402 (or 503 under injected conflicts)", count, credit/amount)
			}
			ctx := context.Background()
			b, _ := h.api.Store().Balance(ctx, "dave")
			var sum int64
			cur := ""
			for {
				p, err := h.api.Store().Ledger(ctx, "dave", 100, cur)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range p.Items {
					sum += e.Signed()
				}
				if cur = p.NextCursor; cur == "" {
					break
				}
			}
			if b.Balance < 0 || b.Balance != sum || b.Balance != credit-int64(count[201])*amount {
				t.Errorf("balance %d, ledger sum %d, credits-debits %d", b.Balance, sum, credit-int64(count[201])*amount)
			}
		})
	}
}

// A settle sent twice debits once.
func TestSettleTwiceDebitsOnce(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "erin", 5000, map[string]int64{"o-e": 1200})
	h.charge(t, "o-e", 1200)
	first := h.must(t, 200, "POST", "/orders/o-e/settle", "", key("settle-e"))
	second := h.must(t, 200, "POST", "/orders/o-e/settle", "", key("settle-e"))
	if second.Body != first.Body || second.Headers["Idempotent-Replayed"] != "true" || first.Headers["Idempotent-Replayed"] != "" {
		t.Errorf("second settle = %v %s, want replay of %s", second.Headers, second.Body, first.Body)
	}
	b, _ := h.api.Store().Balance(context.Background(), "erin")
	if b.Balance != 3800 {
		t.Errorf("balance = %d, want 3800 (debited once)", b.Balance)
	}
}

// A settle whose response is lost after commit, then retried, is applied
// once and answers the stored response.
func TestSettleLostResponseAppliedOnce(t *testing.T) {
	for _, mode := range []ddblocal.LoseMode{ddblocal.LoseAs500, ddblocal.LoseAsReset} {
		t.Run(fmt.Sprintf("mode %d", mode), func(t *testing.T) {
			h := newHarness(t)
			if h.env.Engine == nil {
				t.Skip("fault injection needs the embedded engine")
			}
			h.seed(t, "frank", 5000, map[string]int64{"o-f": 1500})
			h.charge(t, "o-f", 1500)
			h.env.Engine.SetFaults(h.env.Table, ddblocal.Faults{LoseResponseRate: 1, LoseResponseMode: mode})
			first := h.do(t, "POST", "/orders/o-f/settle", "", key("settle-f"))
			lost := h.env.Engine.TableFaultCounts(h.env.Table).LostResponses
			h.env.Engine.ClearFaults(h.env.Table)
			if lost == 0 {
				t.Fatal("no response was lost")
			}
			retry := h.must(t, 200, "POST", "/orders/o-f/settle", "", key("settle-f"))
			if retry.Headers["Idempotent-Replayed"] != "true" {
				t.Errorf("retry not marked replayed: %v", retry.Headers)
			}
			if first.StatusCode != 200 || first.Body != retry.Body {
				t.Errorf("first answer %d %s, stored answer %s", first.StatusCode, first.Body, retry.Body)
			}
			ctx := context.Background()
			b, _ := h.api.Store().Balance(ctx, "frank")
			led, _ := h.api.Store().Ledger(ctx, "frank", 10, "")
			settles := 0
			for _, e := range led.Items {
				if e.Kind == store.LedgerSettle {
					settles++
				}
			}
			if b.Balance != 3500 || settles != 1 {
				t.Errorf("balance %d, settle entries %d; want 3500 and 1 (lost responses: %d)", b.Balance, settles, lost)
			}
		})
	}
}

// An expired record no longer blocks its key, even before TTL deletes it.
func TestExpiredRecordDoesNotBlock(t *testing.T) {
	env := dbtest.New(t, func(o *ddblocal.Options) { o.TTLSweepInterval = -1 })
	h := &harness{env: env, api: httpapi.New(env.Client, httpapi.Config{Auth: testAuth, Table: env.Table, Clock: env.Clock.Now,
		IdempotencyExpiry: time.Hour, Log: new(discard)})}
	h.seed(t, "gina", 0, nil)
	body := `{"amount":100,"currency":"EUR"}`
	h.must(t, 201, "POST", "/users/gina/credits", body, key("topup"))
	if r := h.must(t, 201, "POST", "/users/gina/credits", body, key("topup")); r.Headers["Idempotent-Replayed"] != "true" {
		t.Fatal("replay inside the expiry window was not a replay")
	}
	h.must(t, 422, "POST", "/users/gina/credits", `{"amount":5,"currency":"EUR"}`, key("topup"))

	env.Clock.Advance(time.Hour + 2*time.Second)
	if n := countIdem(t, env, "credit"); n != 1 {
		t.Fatalf("idempotency records present = %d, want the expired one still there", n)
	}
	r := h.must(t, 201, "POST", "/users/gina/credits", body, key("topup"))
	if r.Headers["Idempotent-Replayed"] != "" {
		t.Error("request after expiry was answered as a replay")
	}
	b, _ := h.api.Store().Balance(context.Background(), "gina")
	if b.Balance != 200 {
		t.Errorf("balance = %d, want 200 (two credits)", b.Balance)
	}
}

type discard struct{}

func (*discard) Write(p []byte) (int, error) { return len(p), nil }

// countIdem counts the idempotency records of operation (each in a
// partition of its own, so found by a Scan).
func countIdem(t *testing.T, env *dbtest.Env, operation string) int {
	t.Helper()
	out, err := env.Client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(env.Table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, item := range out.Items {
		et, _ := item["EntityType"].(*types.AttributeValueMemberS)
		op, _ := item["operation"].(*types.AttributeValueMemberS)
		if et != nil && et.Value == "Idempotency" && op != nil && op.Value == operation {
			n++
		}
	}
	return n
}

// TestRequestCounts asserts the DynamoDB requests of first calls and
// replays, counted by an SDK middleware.
func TestRequestCounts(t *testing.T) {
	h := newHarness(t)
	h.seed(t, "hank", 10_000, map[string]int64{"o-h1": 700, "o-h2": 300})
	type step struct {
		name, path, body, key string
		status                int
		want                  map[string]int
	}
	tx := map[string]int{"TransactWriteItems": 1}
	steps := []step{
		{"credit first", "/users/hank/credits", `{"amount":10,"currency":"EUR"}`, "k-credit", 201, tx},
		{"credit replay", "/users/hank/credits", `{"amount":10,"currency":"EUR"}`, "k-credit", 201, tx},
		{"credit reused key", "/users/hank/credits", `{"amount":11,"currency":"EUR"}`, "k-credit", 422, tx},
		{"debit first", "/users/hank/debits", `{"amount":10,"currency":"EUR"}`, "k-debit", 201, tx},
		{"debit replay", "/users/hank/debits", `{"amount":10,"currency":"EUR"}`, "k-debit", 201, tx},
		{"debit insufficient", "/users/hank/debits", `{"amount":999999,"currency":"EUR"}`, "k-debit-2", 402, map[string]int{"PutItem": 1, "TransactWriteItems": 1}},
		{"debit insufficient replay", "/users/hank/debits", `{"amount":999999,"currency":"EUR"}`, "k-debit-2", 402, tx},
		{"order first", "/users/hank/orders", `{"orderId":"o-h3","currency":"EUR","items":[{"productId":"p","quantity":1,"unitPrice":5}]}`, "k-order", 201, tx},
		{"order replay", "/users/hank/orders", `{"orderId":"o-h3","currency":"EUR","items":[{"productId":"p","quantity":1,"unitPrice":5}]}`, "k-order", 201, tx},
		{"charge first", "/orders/o-h1/payments", `{"amount":700,"currency":"EUR"}`, "k-charge", 201, tx},
		{"charge replay", "/orders/o-h1/payments", `{"amount":700,"currency":"EUR"}`, "k-charge", 201, tx},
		{"charge before settle", "/orders/o-h2/payments", `{"amount":300,"currency":"EUR"}`, "k-charge-2", 201, tx},
		{"settle first", "/orders/o-h2/settle", "", "k-settle", 200, map[string]int{"BatchGetItem": 1, "TransactWriteItems": 1}},
		{"settle replay", "/orders/o-h2/settle", "", "k-settle", 200, map[string]int{"BatchGetItem": 1}},
		{"settle already paid", "/orders/o-h2/settle", "", "k-settle-2", 409, map[string]int{"BatchGetItem": 1, "GetItem": 2, "PutItem": 1}},
		{"settle already paid replay", "/orders/o-h2/settle", "", "k-settle-2", 409, map[string]int{"BatchGetItem": 1}},
	}
	paymentID := ""
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			h.env.Requests.Reset()
			r := h.must(t, s.status, "POST", s.path, s.body, key(s.key))
			got := h.env.Requests.Snapshot()
			if fmt.Sprint(got) != fmt.Sprint(s.want) {
				t.Errorf("requests = %v, want %v", got, s.want)
			}
			if s.name == "charge first" {
				paymentID = field(t, r.Body, "paymentId").(string)
			}
			t.Logf("%s: %v", s.name, got)
		})
	}
	// Processing (back office, not an idempotent flow) reads the order's
	// user for the payment's events, then updates the payment.
	t.Run("process", func(t *testing.T) {
		h.env.Requests.Reset()
		r := h.must(t, 200, "POST", "/orders/o-h1/payments/"+paymentID+"/process", "", nil)
		if got, want := h.env.Requests.Snapshot(), map[string]int{"GetItem": 1, "UpdateItem": 1}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("requests = %v, want %v", got, want)
		}
		if u := field(t, r.Body, "userId"); u != "hank" {
			t.Errorf("processed payment's userId = %v, want the order's user hank", u)
		}
	})
}
