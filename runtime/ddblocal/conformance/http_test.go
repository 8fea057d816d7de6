package conformance_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	pageConstraints = "Constraints in Amazon DynamoDB (Developer Guide), https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html"
	pageEndpoints   = "DynamoDB endpoints and quotas (AWS General Reference), https://docs.aws.amazon.com/general/latest/gr/ddb.html"
	pageTagResource = "TagResource (DynamoDB API Reference), https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TagResource.html"
	pageBrowser     = "DynamoDB low-level API (Developer Guide), https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.LowLevelAPI.html"
	// maxRequestBody is DynamoDB's request size limit: BatchWriteItem, its
	// largest request, carries up to 16 MB.
	maxRequestBody = 16 << 20
)

// rawRequest is one raw HTTP request to a target.
type rawRequest struct {
	method, target string
	header         map[string]string
	body           io.Reader
	// length is the Content-Length; -1 sends the body chunked.
	length int64
	// expect100 sends "Expect: 100-continue", so a server that refuses by
	// the announced length answers before the body is sent.
	expect100 bool
}

// rawDo sends req to the target, signed as rawCall signs (with an unsigned
// payload, so large bodies are not hashed).
func rawDo(t *testing.T, tg *target, req rawRequest) rawResponse {
	t.Helper()
	url := tg.url
	if url == "" {
		url = "http://ddblocal.invalid"
	}
	body := req.body
	if body == nil {
		body = http.NoBody
	}
	r, err := http.NewRequestWithContext(ctx(t), req.method, url+"/", body)
	noErr(t, err, "new request")
	r.ContentLength = req.length
	if req.target != "" {
		r.Header.Set("X-Amz-Target", req.target)
		r.Header.Set("Content-Type", jsonType)
	}
	for k, v := range req.header {
		r.Header.Set(k, v)
	}
	send := tg.raw
	if req.expect100 {
		r.Header.Set("Expect", "100-continue")
		if tg.url != "" {
			c := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: 30 * time.Second}}
			defer c.CloseIdleConnections()
			send = c.Do
		}
	}
	const unsigned = "UNSIGNED-PAYLOAD"
	r.Header.Set("X-Amz-Content-Sha256", unsigned)
	if err := v4.NewSigner().SignHTTP(r.Context(), tg.creds, r, unsigned, "dynamodb", tg.region, time.Now()); err != nil {
		t.Fatalf("sign: %v", err)
	}
	resp, err := send(r)
	noErr(t, err, "raw request")
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	noErr(t, err, "read body")
	return rawResponse{status: resp.StatusCode, header: resp.Header, body: data}
}

func TestHTTPBodyMustBeObject(t *testing.T) {
	doc(t, pageLowLevel, `The body of a low-level request is a JSON object holding the operation's parameters; a body that is JSON but not an object (null, a list, a string, a number) is not an input of any operation and is refused with HTTP 400 SerializationException, never run as ListTables with no parameters`)
	for _, body := range []string{`null`, ` null `, `[]`, `[{"Limit":1}]`, `"ListTables"`, `1`, `true`} {
		t.Run(body, func(t *testing.T) {
			each(t, func(t *testing.T, tg *target) {
				r := rawCall(t, tg, targetPrefix+"ListTables", jsonType, body)
				if r.status != 400 {
					t.Fatalf("status = %d (body %s), want 400", r.status, r.body)
				}
				if eb := decodeError(t, r); !strings.HasSuffix(eb.Type, "#SerializationException") {
					t.Errorf("__type = %q, want ...#SerializationException", eb.Type)
				}
			})
		})
	}
	t.Run("an object is still read", func(t *testing.T) {
		each(t, func(t *testing.T, tg *target) {
			r := rawCall(t, tg, targetPrefix+"ListTables", jsonType, ` {"Limit":1}`)
			if r.status != 200 {
				t.Errorf("status = %d (body %s), want 200", r.status, r.body)
			}
		})
	})
}

func TestHTTPRequestTooLarge(t *testing.T) {
	doc(t, pageConstraints, `BatchWriteItem, DynamoDB's largest request, can write up to 16 MB of data; DynamoDB's endpoint refuses a request body over 16 MiB with HTTP 413 (Request Entity Too Large), whether its Content-Length announces the size or a chunked body runs past it`)
	over := bytes.Repeat([]byte(" "), maxRequestBody+1)
	t.Run("by Content-Length", func(t *testing.T) {
		each(t, func(t *testing.T, tg *target) {
			r := rawDo(t, tg, rawRequest{method: http.MethodPost, target: targetPrefix + "ListTables",
				body: bytes.NewReader(over), length: int64(len(over)), expect100: true})
			if r.status != http.StatusRequestEntityTooLarge {
				t.Errorf("status = %d (body %.200s), want 413", r.status, r.body)
			}
		})
	})
	t.Run("chunked", func(t *testing.T) {
		each(t, func(t *testing.T, tg *target) {
			r := rawDo(t, tg, rawRequest{method: http.MethodPost, target: targetPrefix + "ListTables",
				body: io.MultiReader(bytes.NewReader(over)), length: -1})
			if r.status != http.StatusRequestEntityTooLarge {
				t.Errorf("status = %d (body %.200s), want 413", r.status, r.body)
			}
		})
	})
	t.Run("at the limit is read", func(t *testing.T) {
		each(t, func(t *testing.T, tg *target) {
			at := append(bytes.Repeat([]byte(" "), maxRequestBody-2), "{}"...)
			r := rawDo(t, tg, rawRequest{method: http.MethodPost, target: targetPrefix + "ListTables",
				body: bytes.NewReader(at), length: int64(len(at))})
			if r.status != 200 {
				t.Errorf("status = %d (body %.200s), want 200", r.status, r.body)
			}
		})
	})
}

func TestHTTPTagResourceEmptyBody(t *testing.T) {
	doc(t, pageTagResource, `TagResource and UntagResource: "Response Elements: If the action is successful, the service sends back an HTTP 200 response with an empty HTTP body."`)
	each(t, func(t *testing.T, tg *target) {
		name := hashTable(t, tg)
		d, err := tg.client.DescribeTable(ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		noErr(t, err, "DescribeTable")
		arn := aws.ToString(d.Table.TableArn)
		for _, c := range []struct{ op, body string }{
			{"TagResource", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"team","Value":"payments"}]}`},
			{"UntagResource", `{"ResourceArn":"` + arn + `","TagKeys":["team"]}`},
		} {
			r := rawCall(t, tg, targetPrefix+c.op, jsonType, c.body)
			if r.status != 200 || len(r.body) != 0 {
				t.Errorf("%s: status %d, body %q; want 200 and an empty body", c.op, r.status, r.body)
			}
		}
		// Through the SDK, the tag round-trips.
		_, err = tg.client.TagResource(ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn),
			Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
		noErr(t, err, "TagResource")
		out, err := tg.client.ListTagsOfResource(ctx(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
		noErr(t, err, "ListTagsOfResource")
		if len(out.Tags) != 1 || aws.ToString(out.Tags[0].Key) != "k" {
			t.Errorf("tags = %v, want k=v", out.Tags)
		}
	})
}

func TestHTTPHealthCheck(t *testing.T) {
	doc(t, pageEndpoints, `DynamoDB's regional endpoint is https://dynamodb.<region>.amazonaws.com; a plain GET / on it answers 200 with the body "healthy: dynamodb.<region>.amazonaws.com " (what curl shows, trailing space included), with x-amz-crc32 and Content-Length`)
	each(t, func(t *testing.T, tg *target) {
		r := rawDo(t, tg, rawRequest{method: http.MethodGet})
		if r.status != 200 {
			t.Fatalf("status = %d, want 200", r.status)
		}
		if want := "healthy: dynamodb." + tg.region + ".amazonaws.com "; string(r.body) != want {
			t.Errorf("body = %q, want %q", r.body, want)
		}
		wantCRC32(t, r)
	})
}

func TestHTTPCORS(t *testing.T) {
	doc(t, pageBrowser, `Browser applications (the AWS SDK for JavaScript in the browser) call DynamoDB's endpoint across origins: it answers a CORS preflight (OPTIONS with Origin) with 200, allowing any origin, the requested method and headers, and an empty body, and answers every request that carries Origin with Access-Control-Allow-Origin`)
	const origin = "https://app.example.com"
	t.Run("preflight", func(t *testing.T) {
		each(t, func(t *testing.T, tg *target) {
			r := rawDo(t, tg, rawRequest{method: http.MethodOptions, header: map[string]string{
				"Origin":                         origin,
				"Access-Control-Request-Method":  "POST",
				"Access-Control-Request-Headers": "content-type,x-amz-target,authorization",
			}})
			if r.status != 200 || len(r.body) != 0 {
				t.Fatalf("status %d, body %q; want 200 and an empty body", r.status, r.body)
			}
			for h, want := range map[string]string{
				"Access-Control-Allow-Origin":  "*",
				"Access-Control-Allow-Methods": "POST",
				"Access-Control-Allow-Headers": "content-type,x-amz-target,authorization",
			} {
				if got := r.header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			if r.header.Get("Access-Control-Max-Age") == "" {
				t.Errorf("preflight has no Access-Control-Max-Age")
			}
		})
	})
	t.Run("request with Origin", func(t *testing.T) {
		each(t, func(t *testing.T, tg *target) {
			r := rawDo(t, tg, rawRequest{method: http.MethodPost, target: targetPrefix + "ListTables",
				header: map[string]string{"Origin": origin}, body: strings.NewReader(`{"Limit":1}`), length: 11})
			if r.status != 200 {
				t.Fatalf("status = %d (body %s), want 200", r.status, r.body)
			}
			var out map[string]any
			noErr(t, json.Unmarshal(r.body, &out), "decode ListTables")
			if got := r.header.Get("Access-Control-Allow-Origin"); got != "*" {
				t.Errorf("Access-Control-Allow-Origin = %q, want *", got)
			}
		})
	})
	t.Run("error with Origin", func(t *testing.T) {
		each(t, func(t *testing.T, tg *target) {
			r := rawDo(t, tg, rawRequest{method: http.MethodPost, target: targetPrefix + "DescribeTable",
				header: map[string]string{"Origin": origin}, body: strings.NewReader(`{}`), length: 2})
			if r.status != 400 {
				t.Fatalf("status = %d (body %s), want 400", r.status, r.body)
			}
			if got := r.header.Get("Access-Control-Allow-Origin"); got != "*" {
				t.Errorf("Access-Control-Allow-Origin = %q, want *", got)
			}
		})
	})
}
