package httpapi_test

import (
	"strings"
	"testing"
)

// Every JSON body ends with one newline (the shell prompt after curl starts
// on its own line), and a replay is byte-identical to the first answer.
func TestBodiesEndWithNewline(t *testing.T) {
	h := newHarness(t)
	credit := `{"amount":100,"currency":"EUR"}`
	for _, tt := range []struct {
		name, method, path, body string
		headers                  map[string]string
		status                   int
	}{
		{"created", "POST", "/users", `{"userId":"nl","name":"N","email":"n@example.com"}`, nil, 201},
		{"read", "GET", "/users/nl", "", nil, 200},
		{"flow", "POST", "/users/nl/credits", credit, key("nl-1"), 201},
		{"replay", "POST", "/users/nl/credits", credit, key("nl-1"), 201},
		{"list", "GET", "/users/nl/ledger", "", nil, 200},
		{"problem", "GET", "/users/nobody", "", nil, 404},
		{"bad escape", "GET", "/users/%ZZ", "", nil, 400},
	} {
		resp := h.do(t, tt.method, tt.path, tt.body, tt.headers)
		if resp.StatusCode != tt.status || !strings.HasSuffix(resp.Body, "}\n") || strings.HasSuffix(resp.Body, "\n\n") {
			t.Errorf("%s: %d %q, want %d and a body ending in one newline", tt.name, resp.StatusCode, resp.Body, tt.status)
		}
	}
	first := h.do(t, "POST", "/users/nl/credits", credit, key("nl-2"))
	again := h.do(t, "POST", "/users/nl/credits", credit, key("nl-2"))
	if first.Body != again.Body || again.Headers["Idempotent-Replayed"] != "true" {
		t.Errorf("replay differs:\n first %q\n again %q", first.Body, again.Body)
	}
}
