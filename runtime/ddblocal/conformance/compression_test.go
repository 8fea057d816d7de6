package conformance_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

const (
	pageCompression = "Request compression (AWS SDKs and Tools Reference Guide), https://docs.aws.amazon.com/sdkref/latest/guide/feature-compression.html"
	// pageCompressionObserved names where the endpoint's answers to
	// compressed bodies were recorded against DynamoDB itself.
	pageCompressionObserved = "DynamoDB's endpoint as ScyllaDB's Alternator suite records it (test/alternator/test_compressed_request.py, test_compressed_response.py, run against DynamoDB)"
)

func gzipped(parts ...string) []byte {
	var out bytes.Buffer
	for _, p := range parts {
		zw := gzip.NewWriter(&out)
		zw.Write([]byte(p))
		zw.Close()
	}
	return out.Bytes()
}

func deflated(s string) []byte {
	var out bytes.Buffer
	zw := zlib.NewWriter(&out)
	zw.Write([]byte(s))
	zw.Close()
	return out.Bytes()
}

// putEncoded sends a PutItem of pk=p whose body is body with the given
// Content-Encoding.
func putEncoded(t *testing.T, tg *target, body []byte, encoding string) rawResponse {
	t.Helper()
	return rawDo(t, tg, rawRequest{method: http.MethodPost, target: targetPrefix + "PutItem",
		header: map[string]string{"Content-Encoding": encoding}, body: bytes.NewReader(body), length: int64(len(body))})
}

func TestHTTPCompressedRequest(t *testing.T) {
	doc(t, pageCompression, "An SDK may compress a request body with gzip and send Content-Encoding: gzip; the service decodes it")
	doc(t, pageCompressionObserved, "a gzip body of one member or several concatenated is read, as is a deflate (zlib) body; bytes after a complete gzip member are ignored; a body that does not decode, an empty one, and a Content-Encoding the endpoint does not know get HTTP 500 and write nothing")
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		put := func(p string) string {
			return fmt.Sprintf(`{"TableName":%q,"Item":{"pk":{"S":%q},"v":{"S":"x"}}}`, table, p)
		}
		get := func(p string) bool {
			out, err := tg.client.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: item{"pk": s(p)}, ConsistentRead: aws.Bool(true)})
			noErr(t, err, "GetItem")
			return out.Item != nil
		}
		for _, tt := range []struct {
			name, encoding string
			body           []byte
			status         int
		}{
			{"gzip", "gzip", gzipped(put("gzip")), 200},
			{"two gzip members", "gzip", gzipped(put("two")[:10], put("two")[10:]), 200},
			{"trailing bytes", "gzip", append(gzipped(put("trailing")), "junk"...), 200},
			{"deflate", "deflate", deflated(put("deflate")), 200},
			{"upper-case coding", "GZIP", gzipped(put("upper")), 200},
			{"not gzip", "gzip", []byte(put("notgzip")), 500},
			{"truncated gzip", "gzip", func() []byte { b := gzipped(put("truncated")); return b[:len(b)-1] }(), 500},
			{"empty gzip", "gzip", nil, 500},
			{"unknown coding", "garbage", []byte(put("garbage")), 500},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := putEncoded(t, tg, tt.body, tt.encoding)
				if r.status != tt.status {
					t.Fatalf("status = %d (body %.200s), want %d", r.status, r.body, tt.status)
				}
				if tt.status == 500 {
					if eb := decodeError(t, r); !strings.HasSuffix(eb.Type, "#InternalServerError") {
						t.Errorf("__type = %q, want ...#InternalServerError", eb.Type)
					}
				}
				if tt.body != nil {
					p := map[string]string{"gzip": "gzip", "two gzip members": "two", "trailing bytes": "trailing", "deflate": "deflate", "upper-case coding": "upper",
						"not gzip": "notgzip", "truncated gzip": "truncated", "unknown coding": "garbage"}[tt.name]
					if got := get(p); got != (tt.status == 200) {
						t.Errorf("item %s written: %v, want %v", p, got, tt.status == 200)
					}
				}
			})
		}
	})
}

func TestHTTPCompressedResponse(t *testing.T) {
	doc(t, pageCompressionObserved, "a response body of 4,096 bytes or more is compressed with gzip or deflate when the request's Accept-Encoding accepts it (the coding of highest quality, the one named first among equals, a named coding before *, * standing for gzip); a smaller body is sent as it is, and identity, br or a quality of 0 get no compression")
	each(t, func(t *testing.T, tg *target) {
		table := hashTable(t, tg)
		big := strings.Repeat("x", 5000)
		_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("big"), "v": s(big)}})
		noErr(t, err, "PutItem")
		getBody := func(pk string) string {
			return fmt.Sprintf(`{"TableName":%q,"Key":{"pk":{"S":%q}},"ConsistentRead":true}`, table, pk)
		}
		if tg.url != "" {
			// An SDK client that asks for gzip reads the compressed body,
			// its CRC32 included.
			gz := dynamodb.New(tg.client.Options(), func(o *dynamodb.Options) { o.EnableAcceptEncodingGzip = true })
			out, err := gz.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: item{"pk": s("big")}, ConsistentRead: aws.Bool(true)})
			noErr(t, err, "GetItem with EnableAcceptEncodingGzip")
			wantItem(t, out.Item, item{"pk": s("big"), "v": s(big)})
		}
		for _, tt := range []struct {
			accept, pk, want string
		}{
			{"gzip", "big", "gzip"},
			{"deflate", "big", "deflate"},
			{"gzip, deflate", "big", "gzip"},
			{"br, identity, deflate, gzip", "big", "deflate"},
			{"gzip;q=0.5, deflate", "big", "deflate"},
			{"*", "big", "gzip"},
			{"*, deflate", "big", "deflate"},
			{"*, gzip;q=0.5", "big", "deflate"},
			{"deflate;q=0.5, gzip;q=31", "big", "gzip"},
			{"identity", "big", ""},
			{"br", "big", ""},
			{"gzip;q=0", "big", ""},
			{"*;q=0", "big", ""},
			{"gzip", "small", ""},
		} {
			t.Run(tt.accept+" "+tt.pk, func(t *testing.T) {
				if tt.pk == "small" {
					_, err := tg.client.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item{"pk": s("small"), "v": s("x")}})
					noErr(t, err, "PutItem")
				}
				body := getBody(tt.pk)
				r := rawDo(t, tg, rawRequest{method: http.MethodPost, target: targetPrefix + "GetItem",
					header: map[string]string{"Accept-Encoding": tt.accept}, body: strings.NewReader(body), length: int64(len(body))})
				if r.status != 200 {
					t.Fatalf("status = %d (body %.200s)", r.status, r.body)
				}
				if got := r.header.Get("Content-Encoding"); got != tt.want {
					t.Fatalf("Content-Encoding = %q, want %q", got, tt.want)
				}
				plain := r.body
				switch tt.want {
				case "gzip":
					zr, err := gzip.NewReader(bytes.NewReader(r.body))
					noErr(t, err, "gzip")
					plain, err = io.ReadAll(zr)
					noErr(t, err, "gunzip")
				case "deflate":
					zr, err := zlib.NewReader(bytes.NewReader(r.body))
					noErr(t, err, "zlib")
					plain, err = io.ReadAll(zr)
					noErr(t, err, "inflate")
				}
				if tt.pk == "big" && (!bytes.Contains(plain, []byte(big)) || len(r.body) >= len(plain) && tt.want != "") {
					t.Errorf("body of %d bytes, %d decoded, want the 5,000-byte value compressed", len(r.body), len(plain))
				}
			})
		}
	})
}
