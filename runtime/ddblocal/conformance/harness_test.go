package conformance_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/oncetable/oncetable/runtime/ddblocal"
)

// target is one place the suite runs against: the embedded engine
// in-process, the embedded engine over loopback TCP, or DYNAMODB_ENDPOINT.
type target struct {
	name   string
	client *dynamodb.Client
	// engine is nil for an external endpoint.
	engine *ddblocal.Engine
	// raw sends one raw HTTP request (protocol tests).
	raw func(req *http.Request) (*http.Response, error)
	// url is the HTTP base URL, "" in-process.
	url string
	// region and creds sign raw requests for an external endpoint.
	region string
	creds  aws.Credentials
}

func (tg *target) external() bool { return tg.engine == nil }

var (
	sharedOnce    sync.Once
	sharedTargets []*target
	sharedClose   []func()
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, f := range sharedClose {
		f()
	}
	os.Exit(code)
}

// clientOptions makes every client send each request once, so a test sees
// the service's own answer rather than the SDK's retries, with one
// exception: see readRetryer.
func clientOptions(o *dynamodb.Options) { o.Retryer = newReadRetryer() }

// readRetryer retries read operations, and only when the SDK's HTTP
// transport reports "use of closed network connection" while reading a
// response body. That is a known client-side race of aws-sdk-go-v2 and
// net/http (aws-sdk-go-v2 issues 1825 and 2737) which a fast local server
// makes frequent; the SDK's default retryer retries it for that reason.
// Writes are never retried: the request may have been applied.
type readRetryer struct{ aws.RetryerV2 }

func newReadRetryer() aws.Retryer {
	return readRetryer{retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 3
		o.Retryables = []retry.IsErrorRetryable{retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
			if err != nil && strings.Contains(err.Error(), "use of closed network connection") {
				return aws.TrueTernary
			}
			return aws.FalseTernary
		})}
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		o.RateLimiter = ratelimit.None
	})}
}

var readOperations = map[string]bool{
	"GetItem": true, "Query": true, "Scan": true, "BatchGetItem": true, "TransactGetItems": true,
	"DescribeTable": true, "ListTables": true, "DescribeTimeToLive": true, "DescribeContinuousBackups": true,
}

var errWriteNotRetried = errors.New("conformance: a write is not retried after a transport error")

func (r readRetryer) GetRetryToken(ctx context.Context, opErr error) (func(error) error, error) {
	if !readOperations[awsmiddleware.GetOperationName(ctx)] {
		return nil, errWriteNotRetried
	}
	return r.RetryerV2.GetRetryToken(ctx, opErr)
}

func envCreds() aws.Credentials {
	c := aws.Credentials{AccessKeyID: "conformance", SecretAccessKey: "conformance", Source: "conformance"}
	if v := os.Getenv("AWS_ACCESS_KEY_ID"); v != "" {
		c.AccessKeyID = v
		c.SecretAccessKey = os.Getenv("AWS_SECRET_ACCESS_KEY")
		c.SessionToken = os.Getenv("AWS_SESSION_TOKEN")
	}
	return c
}

func envRegion() string {
	if r := os.Getenv("AWS_REGION"); r != "" {
		return r
	}
	return "us-east-1"
}

// httpClient builds a client for an HTTP endpoint with dynamodb.New directly:
// config.LoadDefaultConfig would trip over AWS_CA_BUNDLE.
func httpClient(endpoint, region string, creds aws.Credentials) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       region,
		BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return creds, nil
		}),
		Retryer: newReadRetryer(),
	})
}

// targets returns the shared targets: DYNAMODB_ENDPOINT alone when set,
// otherwise one engine in-process and one engine over loopback TCP.
func targets(t *testing.T) []*target {
	t.Helper()
	sharedOnce.Do(func() {
		if ep := os.Getenv("DYNAMODB_ENDPOINT"); ep != "" {
			region, creds := envRegion(), envCreds()
			sharedTargets = []*target{{
				name: "endpoint", client: httpClient(ep, region, creds),
				url: strings.TrimRight(ep, "/"), region: region, creds: creds,
				raw: http.DefaultClient.Do,
			}}
			return
		}
		in, inClose := newInproc(nil)
		tcp, tcpClose := newTCP(nil)
		sharedTargets = []*target{in, tcp}
		sharedClose = append(sharedClose, inClose, tcpClose)
	})
	return sharedTargets
}

func newInproc(opts []func(*ddblocal.Options)) (*target, func()) {
	e := ddblocal.New(opts...)
	h := e.Handler()
	tg := &target{
		name: "inproc", engine: e, client: e.Client(clientOptions),
		region: "us-east-1", creds: envCreds(),
		raw: func(req *http.Request) (*http.Response, error) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec.Result(), nil
		},
	}
	return tg, func() { _ = e.Close() }
}

func newTCP(opts []func(*ddblocal.Options)) (*target, func()) {
	e := ddblocal.New(opts...)
	srv := httptest.NewServer(e.Handler())
	tg := &target{
		name: "tcp", engine: e, url: srv.URL,
		client: httpClient(srv.URL, "us-east-1", envCreds()),
		region: "us-east-1", creds: envCreds(),
		raw: srv.Client().Do,
	}
	return tg, func() { srv.Close(); _ = e.Close() }
}

// each runs f once per target as subtests named after the target.
func each(t *testing.T, f func(t *testing.T, tg *target)) {
	t.Helper()
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) { f(t, tg) })
	}
}

// eachEngine runs f against fresh engines built with opts, in-process and
// over TCP. It skips against an external endpoint, which has no injectable
// clock or fault injection.
func eachEngine(t *testing.T, opts []func(*ddblocal.Options), f func(t *testing.T, tg *target)) {
	t.Helper()
	if os.Getenv("DYNAMODB_ENDPOINT") != "" {
		t.Skip("needs the embedded engine's injectable clock or fault injection; DYNAMODB_ENDPOINT is set")
	}
	for _, mk := range []func([]func(*ddblocal.Options)) (*target, func()){newInproc, newTCP} {
		tg, done := mk(opts)
		t.Run(tg.name, func(t *testing.T) {
			defer done()
			f(t, tg)
		})
	}
}

// doc records the AWS documentation statement a test checks. It is printed
// when the test fails, so a failure says which promise was broken.
func doc(t *testing.T, page, statement string) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("doc [%s]: %s", page, statement)
		}
	})
}

// knownDivergence skips a case the embedded engine is known to fail while
// the divergence is open (listed under "Known divergences" in
// docs/engine-conformance.md). The case still runs against DYNAMODB_ENDPOINT,
// where it checks the service itself, and everywhere with CONFORMANCE_ALL=1.
func knownDivergence(t *testing.T, tg *target, note string) {
	t.Helper()
	if tg.external() || os.Getenv("CONFORMANCE_ALL") == "1" {
		return
	}
	t.Skipf("known divergence of the embedded engine, still open: %s (run with CONFORMANCE_ALL=1 to see it fail)", note)
}

// fakeClock is an injectable clock that tests move by hand.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock(start time.Time) *fakeClock {
	c := &fakeClock{}
	c.ns.Store(start.UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }
func (c *fakeClock) option() func(*ddblocal.Options) {
	return func(o *ddblocal.Options) { o.Clock = c.Now }
}

var tableSeq atomic.Int64

var nameSanitizer = regexp.MustCompile(`[^a-zA-Z0-9]+`)

// tableName is unique per run and per call, and legal in DynamoDB.
func tableName(t *testing.T) string {
	base := nameSanitizer.ReplaceAllString(t.Name(), "-")
	if len(base) > 150 {
		base = base[len(base)-150:]
	}
	return fmt.Sprintf("conf-%d-%d-%s", os.Getpid()%100000, tableSeq.Add(1), strings.Trim(base, "-"))
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// createTable creates the table described by in (TableName filled in when
// empty), waits until it is ACTIVE and deletes it when the test ends.
func createTable(t *testing.T, tg *target, in *dynamodb.CreateTableInput) string {
	t.Helper()
	if in.TableName == nil {
		in.TableName = aws.String(tableName(t))
	}
	if in.BillingMode == "" && in.ProvisionedThroughput == nil {
		in.BillingMode = types.BillingModePayPerRequest
	}
	name := *in.TableName
	if _, err := tg.client.CreateTable(ctx(t), in); err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
	t.Cleanup(func() {
		_, _ = tg.client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	if tg.external() {
		waitTable(t, tg, name, true)
	}
	return name
}

// waitTable polls an external endpoint until the table is ACTIVE (or gone).
func waitTable(t *testing.T, tg *target, name string, active bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		out, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if active && err == nil && out.Table.TableStatus == types.TableStatusActive {
			return
		}
		if !active && err != nil {
			if code, _, _ := apiError(err); code == "ResourceNotFoundException" {
				return
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("table %s did not become %v in time", name, map[bool]string{true: "ACTIVE", false: "deleted"}[active])
}

// keyDef builds a key schema element plus its attribute definition.
type keyDef struct {
	name string
	typ  types.ScalarAttributeType
}

// tableInput describes a table with a hash key and an optional range key.
func tableInput(hash keyDef, rng *keyDef) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(hash.name), AttributeType: hash.typ}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(hash.name), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}
	if rng != nil {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(rng.name), AttributeType: rng.typ})
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(rng.name), KeyType: types.KeyTypeRange})
	}
	return in
}

// hashTable creates a table keyed by pk (S).
func hashTable(t *testing.T, tg *target) string {
	t.Helper()
	return createTable(t, tg, tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, nil))
}

// compositeTable creates a table keyed by pk (S) and sk of the given type.
func compositeTable(t *testing.T, tg *target, skType types.ScalarAttributeType) string {
	t.Helper()
	return createTable(t, tg, tableInput(keyDef{"pk", types.ScalarAttributeTypeS}, &keyDef{"sk", skType}))
}

// Attribute value shorthands.
func s(v string) types.AttributeValue     { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue     { return &types.AttributeValueMemberN{Value: v} }
func b(v []byte) types.AttributeValue     { return &types.AttributeValueMemberB{Value: v} }
func boolv(v bool) types.AttributeValue   { return &types.AttributeValueMemberBOOL{Value: v} }
func null() types.AttributeValue          { return &types.AttributeValueMemberNULL{Value: true} }
func ss(v ...string) types.AttributeValue { return &types.AttributeValueMemberSS{Value: v} }
func ns(v ...string) types.AttributeValue { return &types.AttributeValueMemberNS{Value: v} }
func bs(v ...[]byte) types.AttributeValue { return &types.AttributeValueMemberBS{Value: v} }
func l(v ...types.AttributeValue) types.AttributeValue {
	if v == nil {
		v = []types.AttributeValue{}
	}
	return &types.AttributeValueMemberL{Value: v}
}
func m(v map[string]types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberM{Value: v}
}

type item = map[string]types.AttributeValue

func put(t *testing.T, tg *target, table string, it item) {
	t.Helper()
	if _, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
		t.Fatalf("PutItem %v: %v", show(it), err)
	}
}

func get(t *testing.T, tg *target, table string, key item) item {
	t.Helper()
	out, err := tg.client.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("GetItem %v: %v", show(key), err)
	}
	return out.Item
}

// apiError extracts the service error code and message.
func apiError(err error) (code, msg string, ok bool) {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode(), ae.ErrorMessage(), true
	}
	return "", "", false
}

func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// wantErr checks that err is the DynamoDB error code with HTTP 400 and a
// message containing every fragment in msg.
func wantErr(t *testing.T, err error, code string, msg ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s %q", code, msg)
	}
	gotCode, gotMsg, ok := apiError(err)
	if !ok {
		t.Fatalf("got non-API error %v, want %s", err, code)
	}
	if gotCode != code {
		t.Fatalf("got error code %s (%q), want %s %q", gotCode, gotMsg, code, msg)
	}
	for _, f := range msg {
		if !strings.Contains(gotMsg, f) {
			t.Errorf("got message %q, want it to contain %q", gotMsg, f)
		}
	}
	if st := httpStatus(err); st != 0 && st != 400 {
		t.Errorf("got HTTP status %d for %s, want 400", st, code)
	}
}

// wantValidation is wantErr for ValidationException.
func wantValidation(t *testing.T, err error, msg ...string) {
	t.Helper()
	wantErr(t, err, "ValidationException", msg...)
}

// wantValidationOneOf accepts any of several wordings, for messages whose
// current wording the suite cannot confirm against the service.
func wantValidationOneOf(t *testing.T, err error, msgs ...string) {
	t.Helper()
	wantErr(t, err, "ValidationException")
	if _, got, ok := apiError(err); ok {
		for _, m := range msgs {
			if strings.Contains(got, m) {
				return
			}
		}
		t.Errorf("got message %q, want one of %q", got, msgs)
	}
}

func noErr(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// show renders attribute values compactly for failure messages.
func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "<nil>"
	case item:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sortStrings(keys)
		var sb strings.Builder
		sb.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(k + ": " + show(x[k]))
		}
		sb.WriteString("}")
		return sb.String()
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("S(%q)", x.Value)
	case *types.AttributeValueMemberN:
		return "N(" + x.Value + ")"
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("B(%x)", x.Value)
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprintf("BOOL(%v)", x.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		return fmt.Sprintf("SS%q", x.Value)
	case *types.AttributeValueMemberNS:
		return fmt.Sprintf("NS%v", x.Value)
	case *types.AttributeValueMemberBS:
		return fmt.Sprintf("BS%x", x.Value)
	case *types.AttributeValueMemberL:
		parts := make([]string, len(x.Value))
		for i, e := range x.Value {
			parts[i] = show(e)
		}
		return "L[" + strings.Join(parts, ", ") + "]"
	case *types.AttributeValueMemberM:
		return "M" + show(item(x.Value))
	case []item:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = show(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	default:
		return fmt.Sprintf("%#v", v)
	}
}

func sortStrings(a []string) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// equalAV compares attribute values; sets compare as sets and numbers
// compare by their canonical text (DynamoDB returns numbers normalized).
func equalAV(a, b types.AttributeValue) bool {
	switch x := a.(type) {
	case *types.AttributeValueMemberS:
		y, ok := b.(*types.AttributeValueMemberS)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberN:
		y, ok := b.(*types.AttributeValueMemberN)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberB:
		y, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Equal(x.Value, y.Value)
	case *types.AttributeValueMemberBOOL:
		y, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberNULL:
		_, ok := b.(*types.AttributeValueMemberNULL)
		return ok
	case *types.AttributeValueMemberSS:
		y, ok := b.(*types.AttributeValueMemberSS)
		return ok && sameSet(x.Value, y.Value)
	case *types.AttributeValueMemberNS:
		y, ok := b.(*types.AttributeValueMemberNS)
		return ok && sameSet(x.Value, y.Value)
	case *types.AttributeValueMemberBS:
		y, ok := b.(*types.AttributeValueMemberBS)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		xs, ys := make([]string, len(x.Value)), make([]string, len(y.Value))
		for i := range x.Value {
			xs[i], ys[i] = string(x.Value[i]), string(y.Value[i])
		}
		return sameSet(xs, ys)
	case *types.AttributeValueMemberL:
		y, ok := b.(*types.AttributeValueMemberL)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		for i := range x.Value {
			if !equalAV(x.Value[i], y.Value[i]) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberM:
		y, ok := b.(*types.AttributeValueMemberM)
		return ok && equalItem(x.Value, y.Value)
	}
	return false
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, v := range a {
		seen[v]++
	}
	for _, v := range b {
		seen[v]--
		if seen[v] < 0 {
			return false
		}
	}
	return true
}

func equalItem(a, b item) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !equalAV(v, w) {
			return false
		}
	}
	return true
}

func wantItem(t *testing.T, got, want item) {
	t.Helper()
	if !equalItem(got, want) {
		t.Errorf("got item %s\nwant       %s", show(got), show(want))
	}
}

// rawResponse is one answer to a raw protocol request.
type rawResponse struct {
	status int
	header http.Header
	body   []byte
}

// rawCall posts body to the target with the given X-Amz-Target and content
// type, signing it with SigV4 (the engine ignores signatures, AWS does not).
func rawCall(t *testing.T, tg *target, amzTarget, contentType, body string) rawResponse {
	t.Helper()
	url := tg.url
	if url == "" {
		url = "http://ddblocal.invalid"
	}
	req, err := http.NewRequestWithContext(ctx(t), http.MethodPost, url+"/", strings.NewReader(body))
	noErr(t, err, "new request")
	if amzTarget != "" {
		req.Header.Set("X-Amz-Target", amzTarget)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	sum := sha256.Sum256([]byte(body))
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	if err := v4.NewSigner().SignHTTP(req.Context(), tg.creds, req, hash, "dynamodb", tg.region, time.Now()); err != nil {
		t.Fatalf("sign: %v", err)
	}
	resp, err := tg.raw(req)
	noErr(t, err, "raw request")
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	noErr(t, err, "read body")
	return rawResponse{status: resp.StatusCode, header: resp.Header, body: data}
}
