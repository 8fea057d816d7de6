package openapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/httpapi/openapi"
)

var update = flag.Bool("update", false, "rewrite docs/openapi.json")

var committed = filepath.Join("..", "..", "..", "docs", "openapi.json")

// TestDocumentIsCommitted fails when the code and docs/openapi.json disagree.
func TestDocumentIsCommitted(t *testing.T) {
	got := openapi.Document()
	if *update {
		if err := os.WriteFile(committed, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/openapi.json is stale (%d bytes, generated %d): go test ./runtime/httpapi/openapi -update", len(want), len(got))
	}
}

// TestDocumentCoversRoutes: every route is an operation with its method,
// and the required header is declared exactly on the idempotent flows.
func TestDocumentCoversRoutes(t *testing.T) {
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Parameters  []struct {
				Name, In string
				Required bool
			} `json:"parameters"`
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q", doc.OpenAPI)
	}
	for _, op := range httpapi.Operations() {
		got, ok := doc.Paths[op.Path][map[string]string{"GET": "get", "POST": "post"}[op.Method]]
		if !ok || got.OperationID != op.Name {
			t.Errorf("%s %s: operation %q missing", op.Method, op.Path, op.Name)
			continue
		}
		key := false
		for _, p := range got.Parameters {
			key = key || (p.In == "header" && p.Name == "Idempotency-Key" && p.Required)
		}
		if key != (op.Flow != "") {
			t.Errorf("%s: Idempotency-Key header declared %v, flow %q", op.Name, key, op.Flow)
		}
		for _, status := range []string{"400", "404", "405", "500", "503"} {
			if _, ok := got.Responses[status]; !ok {
				t.Errorf("%s: no %s response", op.Name, status)
			}
		}
	}
}
