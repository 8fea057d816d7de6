package enginebench

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

type countingTransport struct {
	calls int
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.calls++
	body := `{"n":` + string(rune('0'+c.calls)) + `}`
	return response(req, http.StatusOK, http.Header{"Content-Type": {"application/x-amz-json-1.0"}}, []byte(body)), nil
}

func TestReplayTransport(t *testing.T) {
	next := &countingTransport{}
	rt := &replayTransport{next: next, saved: map[string]savedResponse{}}
	call := func(target string) string {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, "http://x.invalid/", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Amz-Target", target)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := call("A"); got != `{"n":1}` || next.calls != 1 {
		t.Fatalf("disarmed: got %s after %d calls", got, next.calls)
	}
	disarm := rt.arm()
	for range 3 {
		if got := call("A"); got != `{"n":2}` {
			t.Errorf("armed A: got %s, want the first armed answer replayed", got)
		}
	}
	if got := call("B"); got != `{"n":3}` {
		t.Errorf("armed B: got %s", got)
	}
	if next.calls != 3 {
		t.Errorf("armed: next called %d times, want once per operation (3 in all)", next.calls)
	}
	disarm()
	if got := call("A"); got != `{"n":4}` {
		t.Errorf("disarmed again: got %s", got)
	}
}
