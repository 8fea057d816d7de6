package localrun_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/localrun"
)

// TestEventsAreForOperators: GET /_local/events lists every user's money
// events, so it answers operators only (a caller without X-Local-Scopes
// is one, as on every route), and refuses customers and services as the
// API refuses a back-office route.
func TestEventsAreForOperators(t *testing.T) {
	s, _ := start(t, "")
	defer s.Shutdown(t.Context())
	for _, c := range []struct {
		name    string
		headers []string
		status  int
	}{
		{"local operator (no scopes header)", nil, 200},
		{"operator token", []string{localrun.ScopesHeader, "payments/operator"}, 200},
		{"customer", []string{localrun.CallerHeader, "bob", localrun.ScopesHeader, "payments/customer"}, 403},
		{"service", []string{localrun.CallerHeader, "backend", localrun.ScopesHeader, "payments/service"}, 403},
		{"no recognised scope", []string{localrun.ScopesHeader, "openid"}, 403},
		{"malformed caller", []string{localrun.CallerHeader, "a b"}, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := call(t, "GET", s.APIURL+localrun.EventsPath, "", c.headers...)
			if resp.StatusCode != c.status {
				t.Fatalf("GET %s as %s: %d %s, want %d", localrun.EventsPath, c.name, resp.StatusCode, body, c.status)
			}
			if c.status != 200 {
				var p httpapi.Problem
				if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" || json.Unmarshal([]byte(body), &p) != nil || p.Status != c.status {
					t.Errorf("refusal: Content-Type %q, body %s, want problem+json with status %d", ct, body, c.status)
				}
				if strings.Contains(body, "events\"") {
					t.Errorf("refusal leaks events: %s", body)
				}
			}
		})
	}
}

// rawExchange writes head to the runner's API and returns the first
// response it reads (status, Content-Type and up to 4 KB of body), or the
// read error.
func rawExchange(t *testing.T, s *localrun.Server, head string) (string, error) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.APIURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return fmt.Sprintf("%d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), b), nil
}

// TestContentLengthAboveLimit: a declared body above the API's 64 KB is
// answered 413 problem+json from the headers alone, before a byte of the
// body is sent: with Expect: 100-continue the client gets no "100
// Continue", without it the answer does not wait for the body.
func TestContentLengthAboveLimit(t *testing.T) {
	s, _ := start(t, "")
	defer s.Shutdown(t.Context())
	for _, expect := range []string{"Expect: 100-continue\r\n", ""} {
		t.Run(strings.TrimSpace(expect)+"/", func(t *testing.T) {
			head := "POST /users/alice/credits HTTP/1.1\r\nHost: api.local\r\nContent-Type: application/json\r\nIdempotency-Key: big-1\r\n" +
				expect + "Content-Length: 10485760\r\n\r\n"
			got, err := rawExchange(t, s, head)
			if err != nil {
				t.Fatalf("no response before the body: %v", err)
			}
			if !strings.HasPrefix(got, "413 application/problem+json\n") || !strings.Contains(got, `"type":"urn:oncetable:problem:body-too-large"`) ||
				!strings.Contains(got, "Content-Length 10485760") {
				t.Errorf("got %s\nwant 413 problem+json body-too-large naming the Content-Length", got)
			}
		})
	}
}

// TestTrickledRequestIsCut: a client that sends its headers and then
// trickles (or withholds) the body loses the connection after the read
// timeout, and an idle kept-alive connection after the idle timeout.
func TestTrickledRequestIsCut(t *testing.T) {
	s, err := localrun.Start(context.Background(), localrun.Options{APIAddr: "127.0.0.1:0", DynamoDBAddr: "127.0.0.1:0", Out: io.Discard,
		Timeouts: localrun.Timeouts{Read: 300 * time.Millisecond, Idle: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(t.Context())
	addr := strings.TrimPrefix(s.APIURL, "http://")
	closedWithin := func(t *testing.T, c net.Conn, limit time.Duration) {
		t.Helper()
		start := time.Now()
		c.SetReadDeadline(start.Add(5 * time.Second))
		io.Copy(io.Discard, c) // whatever the server answers, until it closes
		if took := time.Since(start); took > limit {
			t.Errorf("the server held the connection %v, want it closed within %v", took, limit)
		}
	}
	t.Run("trickled body", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "POST /users/alice/credits HTTP/1.1\r\nHost: api.local\r\nContent-Type: application/json\r\nIdempotency-Key: slow-1\r\nContent-Length: 40\r\n\r\n{\"amo")
		closedWithin(t, c, 2*time.Second)
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET /openapi.json HTTP/1.1\r\nHost: api.local\r\n\r\n")
		closedWithin(t, c, 2*time.Second)
	})
}

// TestBannerSaysTheEngineTrustsAnyCredentials: the embedded engine's port
// accepts any access key and signature, and the banner says so.
func TestBannerSaysTheEngineTrustsAnyCredentials(t *testing.T) {
	s, out := start(t, "")
	defer s.Shutdown(t.Context())
	if !strings.Contains(out.String(), "accepts any credentials") {
		t.Errorf("banner:\n%s\nwant it to say that the engine's port accepts any credentials", out.String())
	}
}

// TestLocalEventBridge: POST /_local/eventbridge takes PutEvents from
// operators only, and what it accepts joins GET /_local/events; a wrong
// operation or a bad batch is refused and adds nothing.
func TestLocalEventBridge(t *testing.T) {
	s, _ := start(t, "")
	defer s.Shutdown(t.Context())
	entry := `{"EventBusName":"default","Source":"oncetable.payments","DetailType":"CreditPosted","Detail":"{\"id\":\"CreditPosted:cr_1\"}"}`
	eleven := `{"Entries":[` + strings.TrimSuffix(strings.Repeat(entry+",", 11), ",") + `]}`
	put := []string{"X-Amz-Target", "AWSEvents.PutEvents"}
	for _, c := range []struct {
		name, body string
		headers    []string
		status     int
		added      int
	}{
		{"customer", `{"Entries":[` + entry + `]}`, append([]string{localrun.CallerHeader, "bob", localrun.ScopesHeader, "payments/customer"}, put...), 403, 0},
		{"another operation", `{"Entries":[` + entry + `]}`, []string{"X-Amz-Target", "AWSEvents.PutRule"}, 400, 0},
		{"no entries", `{"Entries":[]}`, put, 400, 0},
		{"eleven entries", eleven, put, 400, 0},
		{"not JSON", `{`, put, 400, 0},
		{"operator", `{"Entries":[` + entry + `]}`, put, 200, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := len(s.Events.Events())
			resp, body := call(t, "POST", s.APIURL+localrun.EventBridgePath, c.body, c.headers...)
			if resp.StatusCode != c.status {
				t.Fatalf("POST %s: %d %s, want %d", localrun.EventBridgePath, resp.StatusCode, body, c.status)
			}
			if added := len(s.Events.Events()) - before; added != c.added {
				t.Errorf("the bus gained %d events, want %d", added, c.added)
			}
		})
	}
}
