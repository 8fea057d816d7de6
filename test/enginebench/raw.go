package enginebench

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Raw sends one DynamoDB JSON 1.0 request body for the operation named by
// target (such as "PutItem"). An answer other than 200 is an error
// wrapping ErrRawStatus; read, when not nil, gets the 200 answer's body,
// which it must not keep. It is how the engine is measured without any
// client: the workloads build the same request bodies the SDK would send,
// and hand them to the engine's http.Handler in the calling goroutine.
type Raw func(target string, body []byte, read func(resp []byte) error) error

// HandlerRaw calls h in process: a request, a minimal response writer, no
// sockets and no SDK. Requests and writers are pooled, and the request
// headers of each operation are built once (handlers only read them), so
// that the harness adds as little as it can to the engine's own cost.
func HandlerRaw(h http.Handler) Raw {
	var headers sync.Map // target -> http.Header
	pool := sync.Pool{New: func() any { return &rawCallState{w: rawWriter{header: http.Header{}}} }}
	return func(target string, body []byte, read func([]byte) error) error {
		hdr, ok := headers.Load(target)
		if !ok {
			hdr, _ = headers.LoadOrStore(target, http.Header{
				"X-Amz-Target": {"DynamoDB_20120810." + target},
				"Content-Type": {"application/x-amz-json-1.0"},
			})
		}
		st := pool.Get().(*rawCallState)
		defer pool.Put(st)
		st.body.Reset(body)
		st.req = http.Request{
			Method:        http.MethodPost,
			URL:           rootURL,
			Proto:         "HTTP/1.1",
			ProtoMajor:    1,
			ProtoMinor:    1,
			Header:        hdr.(http.Header),
			Body:          io.NopCloser(&st.body),
			ContentLength: int64(len(body)),
			Host:          "localhost",
		}
		st.w.reset()
		h.ServeHTTP(&st.w, &st.req)
		if st.w.status != http.StatusOK {
			return fmt.Errorf("%w: %s %d %s", ErrRawStatus, target, st.w.status, st.w.body.Bytes())
		}
		if read != nil {
			return read(st.w.body.Bytes())
		}
		return nil
	}
}

// rawCallState is what one raw call needs, kept for the next.
type rawCallState struct {
	req  http.Request
	body bytes.Reader
	w    rawWriter
}

var rootURL = &url.URL{Scheme: "http", Host: "localhost", Path: "/"}

type rawWriter struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (w *rawWriter) reset() {
	clear(w.header)
	w.status, w.wrote = http.StatusOK, false
	w.body.Reset()
}

func (w *rawWriter) Header() http.Header { return w.header }

func (w *rawWriter) WriteHeader(status int) {
	if !w.wrote {
		w.status, w.wrote = status, true
	}
}

func (w *rawWriter) Write(p []byte) (int, error) {
	w.wrote = true
	return w.body.Write(p)
}

// ErrRawStatus is returned when a raw request is not answered with 200.
var ErrRawStatus = errors.New("engine answered with an error")

// AppendAttributeValue appends v in DynamoDB's JSON form, as the SDK's
// serializer writes it.
func AppendAttributeValue(b []byte, v types.AttributeValue) []byte {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		b = append(b, `{"S":`...)
		b = strconv.AppendQuote(b, x.Value)
	case *types.AttributeValueMemberN:
		b = append(b, `{"N":`...)
		b = strconv.AppendQuote(b, x.Value)
	case *types.AttributeValueMemberB:
		b = append(b, `{"B":"`...)
		b = base64.StdEncoding.AppendEncode(b, x.Value)
		b = append(b, '"')
	case *types.AttributeValueMemberBOOL:
		b = append(b, `{"BOOL":`...)
		b = strconv.AppendBool(b, x.Value)
	case *types.AttributeValueMemberNULL:
		b = append(b, `{"NULL":true`...)
	case *types.AttributeValueMemberSS:
		b = append(b, `{"SS":`...)
		b = appendStrings(b, x.Value)
	case *types.AttributeValueMemberNS:
		b = append(b, `{"NS":`...)
		b = appendStrings(b, x.Value)
	case *types.AttributeValueMemberBS:
		b = append(b, `{"BS":[`...)
		for i, e := range x.Value {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = base64.StdEncoding.AppendEncode(b, e)
			b = append(b, '"')
		}
		b = append(b, ']')
	case *types.AttributeValueMemberL:
		b = append(b, `{"L":[`...)
		for i, e := range x.Value {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendAttributeValue(b, e)
		}
		b = append(b, ']')
	case *types.AttributeValueMemberM:
		b = append(b, `{"M":`...)
		b = AppendItem(b, x.Value)
	default:
		panic(fmt.Sprintf("enginebench: attribute value %T", v))
	}
	return append(b, '}')
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, s)
	}
	return append(b, ']')
}

// AppendItem appends a map of attribute values as a JSON object, in sorted
// key order.
func AppendItem(b []byte, item map[string]types.AttributeValue) []byte {
	keys := make([]string, 0, len(item))
	for k := range item {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, k)
		b = append(b, ':')
		b = AppendAttributeValue(b, item[k])
	}
	return append(b, '}')
}

// RawPut is Put without a client.
func RawPut(do Raw, table, prefix string) func(*rand.Rand, int) error {
	head := `{"TableName":` + strconv.Quote(table) + `,"Item":`
	return func(_ *rand.Rand, seq int) error {
		b := make([]byte, 0, 512)
		b = append(b, head...)
		b = AppendItem(b, Item(prefix+UserPartition(seq), seq))
		b = append(b, '}')
		return do("PutItem", b, nil)
	}
}

// RawHotUpdate is HotUpdate without a client.
func RawHotUpdate(do Raw, table string) func(*rand.Rand, int) error {
	body := []byte(`{"TableName":` + strconv.Quote(table) +
		`,"Key":{"pk":{"S":"HOT"},"sk":{"S":"HOT"}},"UpdateExpression":"SET cnt = cnt + :one","ConditionExpression":"cnt >= :zero",` +
		`"ExpressionAttributeValues":{":one":{"N":"1"},":zero":{"N":"0"}}}`)
	return func(*rand.Rand, int) error {
		return do("UpdateItem", body, nil)
	}
}

// RawTransact is Transact without a client: the same four distinct random
// items of a table of n, and a fresh ClientRequestToken, which the SDK
// fills in by itself.
func RawTransact(do Raw, table string, n int) func(*rand.Rand, int) error {
	qt := strconv.Quote(table)
	return func(r *rand.Rand, _ int) error {
		var picked [4]int
		b := make([]byte, 0, 1024)
		b = append(b, `{"TransactItems":[`...)
		for k := 0; k < 4; {
			i := r.IntN(n)
			if slices.Contains(picked[:k], i) {
				continue
			}
			picked[k] = i
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"Update":{"TableName":`...)
			b = append(b, qt...)
			b = append(b, `,"Key":{"pk":{"S":"`...)
			b = append(b, UserPartition(i)...)
			b = append(b, `"},"sk":{"S":"`...)
			b = fmt.Appendf(b, "ORDER#%012d", i)
			b = append(b, `"}},"UpdateExpression":"SET cnt = cnt + :one","ConditionExpression":"attribute_exists(pk)","ExpressionAttributeValues":{":one":{"N":"1"}}}}`...)
			k++
		}
		b = append(b, `],"ClientRequestToken":"`...)
		b = appendUUID(b)
		b = append(b, `"}`...)
		return do("TransactWriteItems", b, nil)
	}
}

// appendUUID appends a random version 4 UUID. It draws from the global
// source, randomly seeded per process, so that tokens never repeat across
// rounds and workloads (the workloads' own sources are seeded alike).
func appendUUID(b []byte) []byte {
	var u [16]byte
	for i := range 2 {
		binary.LittleEndian.PutUint64(u[8*i:], rand.Uint64())
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	for i, x := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[x>>4], hexDigits[x&15])
	}
	return b
}

const hexDigits = "0123456789abcdef"

// RawQuery is Query without a client. It checks the answer's Count.
func RawQuery(do Raw, table string) func(*rand.Rand, int) error {
	body := []byte(`{"TableName":` + strconv.Quote(table) + `,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"` + QueryPartition + `"}}}`)
	return func(*rand.Rand, int) error {
		return do("Query", body, func(resp []byte) error {
			if n := topLevelCount(resp); n != 100 {
				return fmt.Errorf("Query returned Count %d, want 100", n)
			}
			return nil
		})
	}
}

// topLevelCount reads the "Count" member of a Query answer. The bench
// items have no attribute named Count, so the member found is the
// answer's own.
func topLevelCount(resp []byte) int {
	i := bytes.LastIndex(resp, []byte(`"Count":`))
	if i < 0 {
		return -1
	}
	rest := resp[i+len(`"Count":`):]
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(rest[:end])))
	if err != nil {
		return -1
	}
	return n
}

// RawCreateTable is the bench table's CreateTable request.
func RawCreateTable(name string) []byte {
	return []byte(`{"TableName":` + strconv.Quote(name) + `,"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],` +
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"BillingMode":"PAY_PER_REQUEST"}`)
}
