package paymentsapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/migrate"
	"github.com/oncetable/oncetable/runtime/migrate/orders"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/schema/provision"
	"github.com/oncetable/oncetable/runtime/store"
)

// recordingDB records, per function, the IAM action and resource ("table"
// or "index/<name>") of every DynamoDB call the runtime makes.
type recordingDB struct {
	*dynamodb.Client
	mu       sync.Mutex
	function string
	seen     map[string]map[string]bool // function -> "resource action"
}

func (r *recordingDB) add(resource string, actions ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[r.function] == nil {
		r.seen[r.function] = map[string]bool{}
	}
	for _, a := range actions {
		r.seen[r.function][resource+" "+a] = true
	}
}

func (r *recordingDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	r.add("table", ActionGetItem)
	return r.Client.GetItem(ctx, in, o...)
}

func (r *recordingDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	r.add("table", ActionPutItem)
	return r.Client.PutItem(ctx, in, o...)
}

func (r *recordingDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	r.add("table", ActionUpdateItem)
	return r.Client.UpdateItem(ctx, in, o...)
}

func (r *recordingDB) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if in.IndexName != nil {
		r.add("index/"+*in.IndexName, ActionQuery)
	} else {
		r.add("table", ActionQuery)
	}
	return r.Client.Query(ctx, in, o...)
}

// TransactWriteItems is authorized per item by IAM.
func (r *recordingDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	for _, it := range in.TransactItems {
		switch {
		case it.Put != nil:
			r.add("table", ActionPutItem)
		case it.Update != nil:
			r.add("table", ActionUpdateItem)
		case it.Delete != nil:
			r.add("table", "dynamodb:DeleteItem")
		case it.ConditionCheck != nil:
			r.add("table", "dynamodb:ConditionCheckItem")
		}
	}
	return r.Client.TransactWriteItems(ctx, in, o...)
}

func (r *recordingDB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	r.add("table", ActionBatchGetItem)
	return r.Client.BatchGetItem(ctx, in, o...)
}

func (r *recordingDB) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	r.add("table", "dynamodb:BatchWriteItem")
	return r.Client.BatchWriteItem(ctx, in, o...)
}

// TestFunctionAccessMatchesRuntime runs every route of the runtime's table
// through its function against the embedded engine and compares the
// DynamoDB actions it really calls with FunctionAccess: every call must be
// granted, and every grant must be used (or be a declared fallback). It
// does so at each order index stage; at stage both the migration
// orders-by-status-v2 is then moved to cutover and orders are read by status
// again, so the fenced writes and both order indexes are exercised.
func TestFunctionAccessMatchesRuntime(t *testing.T) {
	for _, stage := range []schema.OrderIndexes{schema.OrdersV1, schema.OrdersBoth, schema.OrdersV2} {
		t.Run(string(stage), func(t *testing.T) { checkAccess(t, stage) })
	}
}

func checkAccess(t *testing.T, stage schema.OrderIndexes) {
	engine := ddblocal.New()
	defer engine.Close()
	ctx := context.Background()
	const table = "oncetable-access"
	if err := provision.EnsureTableFor(ctx, engine.Client(), table, schema.Schema{Orders: stage}); err != nil {
		t.Fatal(err)
	}
	db := &recordingDB{Client: engine.Client(), seen: map[string]map[string]bool{}}
	// A phase TTL of 1ns: every write and read looks at the phase afresh.
	// The kill switch is on, as in Lambda: its reads need a grant too.
	api := httpapi.New(db, httpapi.Config{Table: table, Log: io.Discard, CursorSecret: []byte("access test secret of 32 bytes!!"), Freeze: true,
		Auth:   httpapi.Auth{IAMOperators: []string{"arn:aws:iam::123456789012:user/tester"}},
		Orders: store.OrderLayout{Stage: stage, PhaseTTL: time.Nanosecond}})
	handlers := map[string]httpapi.HandlerFunc{}
	for _, fn := range Functions() {
		var names []string
		for _, r := range httpapi.Routes() {
			if r.Function == fn {
				names = append(names, r.Name)
			}
		}
		handlers[fn] = api.Only(names...)
	}

	steps := []struct{ method, path, body, key string }{
		{"POST", "/users", `{"userId":"alice","name":"Alice","email":"alice@example.com"}`, ""},
		{"GET", "/users/alice", "", ""},
		{"POST", "/users/alice/addresses", `{"addressId":"home","line1":"1 Main St","city":"Berlin","postalCode":"10115","country":"DE"}`, ""},
		{"POST", "/users/alice/credits", `{"amount":10000,"currency":"EUR"}`, "cr-1"},
		{"POST", "/users/alice/credits", `{"amount":10000,"currency":"EUR"}`, "cr-1"},
		{"POST", "/users/alice/debits", `{"amount":500,"currency":"EUR"}`, "db-1"},
		{"POST", "/users/alice/debits", `{"amount":500,"currency":"EUR"}`, "db-1"},
		{"GET", "/users/alice/balance", "", ""},
		{"GET", "/users/alice/ledger", "", ""},
		{"POST", "/products", `{"productId":"mug","name":"Mug","price":1250,"currency":"EUR","featured":true}`, ""},
		{"GET", "/products/mug", "", ""},
		{"GET", "/products?featured=true", "", ""},
		{"POST", "/users/alice/orders", `{"orderId":"o1","currency":"EUR","items":[{"productId":"mug","quantity":1,"unitPrice":1250}]}`, "ord-1"},
		{"POST", "/users/alice/orders", `{"orderId":"o2","currency":"EUR","items":[{"productId":"mug","quantity":2,"unitPrice":1250}]}`, "ord-2"},
		{"GET", "/users/alice/orders", "", ""},
		{"GET", "/orders/o1", "", ""},
		{"GET", "/orders?status=created", "", ""},
		{"POST", "/orders/o2/payments", `{"amount":2500,"currency":"EUR"}`, "ch-2"}, // a settle needs its charge
		{"POST", "/orders/o1/payments", `{"amount":1250,"currency":"EUR"}`, "ch-1"},
		{"POST", "/orders/o1/payments", `{"amount":1250,"currency":"EUR"}`, "ch-1"},
		{"GET", "/payments/unprocessed", "", ""},
		{"POST", "/orders/o2/settle", "", "st-1"},
		{"POST", "/orders/o2/settle", "", "st-1"},
		{"POST", "/orders/o2/refunds", `{"amount":500,"currency":"EUR"}`, "rf-1"},
		{"POST", "/orders/o2/refunds", `{"amount":500,"currency":"EUR"}`, "rf-1"},
		{"GET", "/orders/o2/refunds", "", ""},
		{"POST", "/orders/o2/ship", "", "sh-1"},
		{"POST", "/orders/o2/ship", "", "sh-1"},
		{"POST", "/orders/o2/deliver", "", "dl-1"},
		{"POST", "/orders/o2/deliver", "", "dl-1"},
		{"POST", "/users/alice/orders", `{"orderId":"o3","currency":"EUR","items":[{"productId":"mug","quantity":1,"unitPrice":1250}]}`, "ord-3"},
		{"POST", "/users/alice/orders", `{"orderId":"o4","currency":"EUR","items":[{"productId":"mug","quantity":1,"unitPrice":1250}]}`, "ord-4"},
		{"POST", "/users/alice/orders", `{"orderId":"o5","currency":"EUR","items":[{"productId":"mug","quantity":1,"unitPrice":1250}]}`, "ord-5"},
		{"POST", "/orders/o5/payments", `{"amount":1250,"currency":"EUR"}`, "ch-5"},
		{"POST", "/orders/o5/cancel", "", "cx-5"},
		{"POST", "/orders/o5/cancel", "", "cx-5"},
		{"POST", "/users", `{"userId":"bob","name":"Bob","email":"bob@example.com"}`, ""},
		{"POST", "/users/alice/transfers", `{"toUserId":"bob","amount":100,"currency":"EUR"}`, "tr-1"},
		{"POST", "/users/alice/transfers", `{"toUserId":"bob","amount":100,"currency":"EUR"}`, "tr-1"},
		{"POST", "/users/alice/holds", `{"amount":300,"currency":"EUR"}`, "h-1"},
		{"POST", "/users/alice/holds", `{"amount":300,"currency":"EUR"}`, "h-1"},
		{"POST", "/users/alice/holds", `{"amount":200,"currency":"EUR"}`, "h-2"},
	}
	// Customers: the functions read an order's user before acting on it
	// (one GetItem), for the order's owner and for a stranger alike.
	customerSteps := []struct {
		sub, method, path, body, key string
		status                       int
	}{
		{"alice", "POST", "/orders/o3/payments", `{"amount":1250,"currency":"EUR"}`, "c-ch-1", http.StatusCreated},
		{"alice", "POST", "/orders/o4/payments", `{"amount":1250,"currency":"EUR"}`, "c-ch-4", http.StatusCreated},
		{"alice", "POST", "/orders/o4/settle", "", "c-st-1", http.StatusOK},
		{"alice", "GET", "/orders/o3", "", "", http.StatusOK},
		{"alice", "POST", "/users/alice/debits", `{"amount":100,"currency":"EUR"}`, "c-db-1", http.StatusCreated},
		{"bob", "POST", "/orders/o3/payments", `{"amount":1250,"currency":"EUR"}`, "b-ch-1", http.StatusNotFound},
		{"bob", "POST", "/orders/o4/settle", "", "b-st-1", http.StatusNotFound},
		{"bob", "POST", "/users/alice/debits", `{"amount":100,"currency":"EUR"}`, "b-db-1", http.StatusNotFound},
	}
	served := map[string]bool{}
	var paymentID, refundID, entryID string
	var holds []string
	for _, s := range steps {
		route := routeOf(t, s.method, s.path)
		db.function = route.Function
		resp := call(t, handlers[route.Function], s.method, s.path, s.body, s.key)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s via %s: status %d %s", s.method, s.path, route.Function, resp.StatusCode, resp.Body)
		}
		served[route.Name] = true
		if route.Name == httpapi.RouteCharge && s.path == "/orders/o1/payments" {
			paymentID = jsonField(resp.Body, "paymentId")
		}
		if route.Name == httpapi.RouteRefund {
			refundID = jsonField(resp.Body, "refundId")
		}
		if route.Name == httpapi.RouteCredit {
			entryID = jsonField(resp.Body, "entryId")
		}
		if route.Name == httpapi.RouteAuthorizeHold && resp.Headers["Idempotent-Replayed"] != "true" {
			holds = append(holds, jsonField(resp.Body, "holdId"))
		}
	}
	for _, s := range customerSteps {
		route := routeOf(t, s.method, s.path)
		db.function = route.Function
		az := &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{
			Claims: map[string]string{"iss": "https://idp.example.com", "sub": s.sub, "scope": httpapi.DefaultCustomerScope}}}
		if resp := callAs(t, handlers[route.Function], az, s.method, s.path, s.body, s.key); resp.StatusCode != s.status {
			t.Fatalf("%s %s as customer %s via %s: status %d %s, want %d", s.method, s.path, s.sub, route.Function, resp.StatusCode, resp.Body, s.status)
		}
	}
	// The payment's, the holds' and the refund's ids are only known after their flows.
	for _, s := range []struct{ method, path, body, key string }{
		{"GET", "/orders/o2/refunds/" + refundID, "", ""},
		{"GET", "/users/alice/ledger/" + entryID, "", ""},
		{"POST", "/orders/o1/payments/" + paymentID + "/process", "", ""},
		{"GET", "/users/alice/holds/" + holds[0], "", ""},
		{"POST", "/users/alice/holds/" + holds[0] + "/capture", `{"amount":250,"currency":"EUR"}`, "cap-1"},
		{"POST", "/users/alice/holds/" + holds[0] + "/capture", `{"amount":250,"currency":"EUR"}`, "cap-1"},
		{"POST", "/users/alice/holds/" + holds[1] + "/void", "", "void-1"},
		{"POST", "/users/alice/holds/" + holds[1] + "/void", "", "void-1"},
	} {
		route := routeOf(t, s.method, s.path)
		db.function = route.Function
		if resp := call(t, handlers[route.Function], s.method, s.path, s.body, s.key); resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: status %d %s", s.method, s.path, resp.StatusCode, resp.Body)
		}
		served[route.Name] = true
	}
	payment := "/orders/o1/payments/" + paymentID
	route := routeOf(t, "GET", payment)
	db.function = route.Function
	if resp := call(t, handlers[route.Function], "GET", payment, "", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d %s", payment, resp.StatusCode, resp.Body)
	}
	served[route.Name] = true
	if stage == schema.OrdersBoth {
		// The migrate command (not a function) moves the migration to
		// cutover; reads by status then go to OrdersByStatus.
		m, err := orders.ByStatus(4, keys.Default)
		if err != nil {
			t.Fatal(err)
		}
		mg, err := migrate.New(engine.Client(), table, m, func(o *migrate.Options) { o.Holder = "access-test" })
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mg.Run(ctx, migrate.Cutover); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/orders?status=created", "/orders?status=paid"} {
			db.function = httpapi.FunctionAPI
			if resp := call(t, handlers[httpapi.FunctionAPI], "GET", path, "", ""); resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s at cutover: status %d %s", path, resp.StatusCode, resp.Body)
			}
		}
	}
	for _, r := range httpapi.Routes() {
		if !served[r.Name] {
			t.Errorf("route %s %s (%s) was not exercised", r.Method, r.Path, r.Name)
		}
	}

	for fn, acc := range FunctionAccess(stage) {
		granted := map[string]bool{}
		for _, a := range append(slices.Clone(acc.TableActions), acc.FenceActions...) {
			granted["table "+a] = true
		}
		for _, ix := range acc.Indexes {
			for _, a := range acc.IndexActions {
				granted["index/"+ix+" "+a] = true
			}
		}
		var missing, unused []string
		for k := range db.seen[fn] {
			if !granted[k] {
				missing = append(missing, k)
			}
		}
		for k := range granted {
			action := strings.SplitN(k, " ", 2)[1]
			if !db.seen[fn][k] && !(strings.HasPrefix(k, "table ") && slices.Contains(acc.FallbackActions, action)) {
				unused = append(unused, k)
			}
		}
		sort.Strings(missing)
		sort.Strings(unused)
		if len(missing) > 0 || len(unused) > 0 {
			t.Errorf("function %s: called but not granted %v; granted but never called %v", fn, missing, unused)
		}
	}
}

func routeOf(t *testing.T, method, path string) httpapi.RouteSpec {
	t.Helper()
	segs := strings.Split(strings.Trim(strings.SplitN(path, "?", 2)[0], "/"), "/")
	for _, r := range DeclaredRoutes() {
		pat := strings.Split(strings.Trim(r.Path, "/"), "/")
		if r.Method != method || len(pat) != len(segs) {
			continue
		}
		ok := true
		for i, p := range pat {
			if !strings.HasPrefix(p, "{") && p != segs[i] {
				ok = false
				break
			}
		}
		if ok {
			return r
		}
	}
	t.Fatalf("no route for %s %s", method, path)
	return httpapi.RouteSpec{}
}

func call(t *testing.T, h httpapi.HandlerFunc, method, path, body, key string) events.APIGatewayV2HTTPResponse {
	t.Helper()
	return callAs(t, h, &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
		IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{UserARN: "arn:aws:iam::123456789012:user/tester"},
	}, method, path, body, key)
}

// callAs sends a request with the authorizer context az.
func callAs(t *testing.T, h httpapi.HandlerFunc, az *events.APIGatewayV2HTTPRequestContextAuthorizerDescription, method, path, body, key string) events.APIGatewayV2HTTPResponse {
	t.Helper()
	rawPath, rawQuery, _ := strings.Cut(path, "?")
	q := map[string]string{}
	for _, kv := range strings.Split(rawQuery, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			q[k] = v
		}
	}
	headers := map[string]string{}
	if body != "" {
		headers["content-type"] = "application/json"
	}
	if key != "" {
		headers["idempotency-key"] = key
	}
	resp, err := h(context.Background(), events.APIGatewayV2HTTPRequest{
		Version: "2.0", RawPath: rawPath, RawQueryString: rawQuery, QueryStringParameters: q, Headers: headers, Body: body,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RequestID: "req", Stage: "$default",
			HTTP:       events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: rawPath},
			Authorizer: az,
		},
	})
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

func jsonField(body, name string) string {
	var m map[string]any
	_ = json.Unmarshal([]byte(body), &m)
	s, _ := m[name].(string)
	return s
}
