package localrun_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/ddblocal"
	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/httpapi/openapi"
	"github.com/oncetable/oncetable/runtime/localrun"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
)

func TestEventConversion(t *testing.T) {
	r := httptest.NewRequest("POST", "http://localhost:8080/users/u%201/credits?limit=5&x=1&x=2", strings.NewReader(`{"a":1}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Idempotency-Key", "k1")
	r.Header.Add("Cookie", "a=1; b=2")
	now := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	ev := localrun.Event(r, []byte(`{"a":1}`), "ops", now)
	checks := []struct{ name, got, want string }{
		{"version", ev.Version, "2.0"},
		{"rawPath", ev.RawPath, "/users/u%201/credits"},
		{"path", ev.RequestContext.HTTP.Path, "/users/u 1/credits"},
		{"method", ev.RequestContext.HTTP.Method, "POST"},
		{"query", ev.QueryStringParameters["x"], "1,2"},
		{"rawQuery", ev.RawQueryString, "limit=5&x=1&x=2"},
		{"header", ev.Headers["idempotency-key"], "k1"},
		{"content-type", ev.Headers["content-type"], "application/json"},
		{"cookies", strings.Join(ev.Cookies, "|"), "a=1|b=2"},
		{"body", ev.Body, `{"a":1}`},
		{"userArn", ev.RequestContext.Authorizer.IAM.UserARN, "arn:aws:iam::000000000000:user/ops"},
		{"time", ev.RequestContext.Time, "29/Nov/2026:20:00:00 +0000"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	bin := localrun.Event(r, []byte{0xff, 0x00}, "ops", now)
	if !bin.IsBase64Encoded || bin.Body != "/wA=" {
		t.Errorf("binary body = %q base64=%v", bin.Body, bin.IsBase64Encoded)
	}
}

func TestCaller(t *testing.T) {
	for _, tt := range []struct {
		header, want string
		ok           bool
	}{{"", "local", true}, {"alice", "alice", true}, {"a b", "", false}, {strings.Repeat("a", 129), "", false}} {
		r := httptest.NewRequest("GET", "/", nil)
		if tt.header != "" {
			r.Header.Set(localrun.CallerHeader, tt.header)
		}
		got, err := localrun.Caller(r)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("Caller(%q) = %q, %v", tt.header, got, err)
		}
	}
}

type syncBuf struct {
	mu  chan struct{}
	buf bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu <- struct{}{}
	defer func() { <-b.mu }()
	return b.buf.Write(p)
}

func (b *syncBuf) String() string {
	b.mu <- struct{}{}
	defer func() { <-b.mu }()
	return b.buf.String()
}

func start(t *testing.T, dir string) (*localrun.Server, *syncBuf) {
	t.Helper()
	out := &syncBuf{mu: make(chan struct{}, 1)}
	s, err := localrun.Start(context.Background(), localrun.Options{APIAddr: "127.0.0.1:0", DynamoDBAddr: "127.0.0.1:0", DataDir: dir, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	return s, out
}

func call(t *testing.T, method, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestServerEndToEnd(t *testing.T) {
	dir := t.TempDir()
	s, out := start(t, dir)
	if !strings.Contains(out.String(), "curl -s -X POST "+s.APIURL+"/v1/users") {
		t.Errorf("banner lacks a first curl command:\n%s", out.String())
	}
	resp, body := call(t, "POST", s.APIURL+"/users", `{"userId":"alice","name":"Alice","email":"alice@example.com"}`)
	if resp.StatusCode != 201 {
		t.Fatalf("create user: %d %s", resp.StatusCode, body)
	}
	credit := `{"amount":500,"currency":"EUR"}`
	resp, first := call(t, "POST", s.APIURL+"/users/alice/credits", credit, "Idempotency-Key", "k1")
	if resp.StatusCode != 201 {
		t.Fatalf("credit: %d %s", resp.StatusCode, first)
	}
	resp, again := call(t, "POST", s.APIURL+"/users/alice/credits", credit, "Idempotency-Key", "k1")
	if resp.StatusCode != 201 || resp.Header.Get("Idempotent-Replayed") != "true" || again != first {
		t.Errorf("replay: %d %v %s", resp.StatusCode, resp.Header, again)
	}
	// Another local caller has its own key space.
	resp, other := call(t, "POST", s.APIURL+"/users/alice/credits", credit, "Idempotency-Key", "k1", localrun.CallerHeader, "bob")
	if resp.StatusCode != 201 || resp.Header.Get("Idempotent-Replayed") != "" || other == first {
		t.Errorf("other caller: %d %v %s", resp.StatusCode, resp.Header, other)
	}
	resp, body = call(t, "GET", s.APIURL+"/users/alice/balance", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"balance":1000`) {
		t.Errorf("balance: %d %s", resp.StatusCode, body)
	}
	resp, body = call(t, "POST", s.APIURL+"/users", strings.Repeat(" ", 70<<10)+`{}`)
	if resp.StatusCode != 413 || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("oversized body: %d %s", resp.StatusCode, body)
	}
	// The oversized body is refused from its Content-Length, before the
	// API (and its log line) sees the request.
	if n := strings.Count(out.String(), `"msg":"request"`); n != 5 {
		t.Errorf("request log lines = %d, want 5:\n%s", n, out.String())
	}

	// The engine speaks the DynamoDB protocol on its own address.
	ddb := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.DynamoDBURL),
		Credentials: aws.AnonymousCredentials{}})
	if _, err := ddb.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("oncetable")}); err != nil {
		t.Errorf("DescribeTable on %s: %v", s.DynamoDBURL, err)
	}

	// -data-dir keeps state across a restart.
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	s2, _ := start(t, dir)
	defer s2.Shutdown(context.Background())
	resp, body = call(t, "GET", s2.APIURL+"/users/alice/balance", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"balance":1000`) {
		t.Errorf("balance after restart: %d %s", resp.StatusCode, body)
	}
}

// -dynamodb-endpoint: a second runner uses the first one's engine over HTTP.
func TestExternalEndpoint(t *testing.T) {
	engine, _ := start(t, "")
	defer engine.Shutdown(context.Background())
	out := &syncBuf{mu: make(chan struct{}, 1)}
	s, err := localrun.Start(context.Background(), localrun.Options{APIAddr: "127.0.0.1:0", DynamoDBEndpoint: engine.DynamoDBURL, Table: "external", Out: out})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	if s.DynamoDBURL != engine.DynamoDBURL || !strings.Contains(out.String(), "external endpoint") {
		t.Errorf("banner:\n%s", out.String())
	}
	if resp, body := call(t, "POST", s.APIURL+"/users", `{"userId":"x1","name":"X","email":"x@example.com"}`); resp.StatusCode != 201 {
		t.Fatalf("create user via external endpoint: %d %s", resp.StatusCode, body)
	}
	ddb := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(engine.DynamoDBURL), Credentials: aws.AnonymousCredentials{}})
	got, err := ddb.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("external"),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "USER#x1"}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"}}})
	if err != nil || len(got.Item) == 0 {
		t.Errorf("user not in the external engine: %v", err)
	}
}

// A second runner on a taken address or a held data directory fails with a
// typed error that names what is in use.
func TestStartInUse(t *testing.T) {
	dir := t.TempDir()
	first, _ := start(t, dir)
	defer first.Shutdown(context.Background())
	apiAddr := strings.TrimPrefix(first.APIURL, "http://")
	ddbAddr := strings.TrimPrefix(first.DynamoDBURL, "http://")
	for _, tt := range []struct {
		name string
		o    localrun.Options
		want string // listener, or "dir"
	}{
		{"api address", localrun.Options{APIAddr: apiAddr, DynamoDBAddr: "127.0.0.1:0"}, localrun.ListenerAPI},
		{"dynamodb address", localrun.Options{APIAddr: "127.0.0.1:0", DynamoDBAddr: ddbAddr}, localrun.ListenerDynamoDB},
		{"data directory", localrun.Options{APIAddr: "127.0.0.1:0", DynamoDBAddr: "127.0.0.1:0", DataDir: dir}, "dir"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Out = io.Discard
			s, err := localrun.Start(context.Background(), tt.o)
			if err == nil {
				s.Shutdown(context.Background())
				t.Fatal("second runner started")
			}
			var inUse *localrun.AddrInUseError
			var dirInUse *localrun.DataDirInUseError
			switch {
			case tt.want == "dir":
				if !errors.As(err, &dirInUse) || dirInUse.Dir != dir {
					t.Errorf("err = %v, want DataDirInUseError{%s}", err, dir)
				}
			case !errors.As(err, &inUse) || inUse.Listener != tt.want:
				t.Errorf("err = %v, want AddrInUseError for %s", err, tt.want)
			}
		})
	}
}

func TestServesOpenAPI(t *testing.T) {
	s, _ := start(t, "")
	defer s.Shutdown(context.Background())
	resp, body := call(t, "GET", s.APIURL+localrun.OpenAPIPath, "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || body != string(openapi.Document()) {
		t.Errorf("GET %s: %d %s, %d bytes", localrun.OpenAPIPath, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
	// Only GET: anything else is the API's answer.
	if resp, _ := call(t, "POST", s.APIURL+localrun.OpenAPIPath, ""); resp.StatusCode != 404 {
		t.Errorf("POST %s: %d, want the API's 404", localrun.OpenAPIPath, resp.StatusCode)
	}
}

// What net/http answers before any handler runs is problem+json too.
func TestWireErrorsAreProblems(t *testing.T) {
	s, _ := start(t, "")
	defer s.Shutdown(context.Background())
	for _, tt := range []struct {
		name, request string
		status        int
		typ, detail   string
	}{
		{"malformed escape", "GET /users/%ZZ HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad-request", "malformed"},
		{"bad protocol", "GET /users/a HTTP/9.9\r\nHost: x\r\n\r\n", 505, "http-version-not-supported", "unsupported protocol version"},
		{"no Host", "GET /users/a HTTP/1.1\r\n\r\n", 400, "bad-request", "missing required Host header"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", strings.TrimPrefix(s.APIURL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, tt.request)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			var p httpapi.Problem
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != "application/problem+json" ||
				json.Unmarshal(body, &p) != nil || p.Type != httpapi.ProblemTypeBase+tt.typ || p.Status != tt.status ||
				!strings.Contains(p.Detail, tt.detail) || !strings.HasSuffix(string(body), "}\n") {
				t.Errorf("got %d %s %q, want %d %s detail containing %q", resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.status, tt.typ, tt.detail)
			}
		})
	}
}

// Options.PartitionThroughput reaches the embedded engine: a partition-key
// value over its write units is throttled with ThrottlingReasons.
func TestPartitionThroughput(t *testing.T) {
	s, err := localrun.Start(context.Background(), localrun.Options{APIAddr: "127.0.0.1:0", DynamoDBAddr: "127.0.0.1:0", Out: io.Discard,
		PartitionThroughput: ddblocal.PartitionThroughput{Enabled: true, WriteUnits: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	ddb := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.DynamoDBURL),
		Credentials: aws.AnonymousCredentials{}, RetryMaxAttempts: 1})
	put := func(sk string) error {
		_, err := ddb.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("oncetable"),
			Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "HOT"}, "SK": &types.AttributeValueMemberS{Value: sk}}})
		return err
	}
	// The bucket holds one unit (one second of one unit): the first put
	// takes it, and the next one within the second is throttled.
	if err := put("first"); err != nil {
		t.Fatalf("first put: %v", err)
	}
	var pe *types.ProvisionedThroughputExceededException
	if err := put("over"); !errors.As(err, &pe) || len(pe.ThrottlingReasons) != 1 ||
		aws.ToString(pe.ThrottlingReasons[0].Reason) != ddblocal.ReasonTableWriteKeyRange {
		t.Fatalf("put over the limit: %v, want ProvisionedThroughputExceededException with %s", err, ddblocal.ReasonTableWriteKeyRange)
	}
}

// -order-indexes: a table kept in -data-dir from stage v1 gains
// OrdersByStatus when the runner restarts in stage both, and the order
// routes write and read the migration's layout.
func TestOrderIndexesStage(t *testing.T) {
	dir := t.TempDir()
	s, _ := start(t, dir)
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := &syncBuf{mu: make(chan struct{}, 1)}
	s, err := localrun.Start(context.Background(), localrun.Options{APIAddr: "127.0.0.1:0", DynamoDBAddr: "127.0.0.1:0", DataDir: dir, Out: out,
		Orders: store.OrderLayout{Stage: schema.OrdersBoth, Shards: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	ddb := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.DynamoDBURL), Credentials: aws.AnonymousCredentials{}})
	d, err := ddb.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("oncetable")})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range d.Table.GlobalSecondaryIndexes {
		names = append(names, aws.ToString(g.IndexName))
	}
	if !slices.Contains(names, schema.OrdersByStatus.Name) || !slices.Contains(names, schema.GSI1.Name) {
		t.Errorf("indexes in stage both = %v, want GSI1 and OrdersByStatus", names)
	}
	call(t, "POST", s.APIURL+"/users", `{"userId":"alice","name":"Alice","email":"alice@example.com"}`)
	order := `{"orderId":"o1","currency":"EUR","items":[{"productId":"p","quantity":1,"unitPrice":5}]}`
	if resp, body := call(t, "POST", s.APIURL+"/users/alice/orders", order, "Idempotency-Key", "o1"); resp.StatusCode != 201 {
		t.Fatalf("create order: %d %s", resp.StatusCode, body)
	}
	if resp, body := call(t, "GET", s.APIURL+"/orders?status=created", ""); resp.StatusCode != 200 || !strings.Contains(body, `"orderId":"o1"`) {
		t.Errorf("orders by status: %d %s", resp.StatusCode, body)
	}
}
