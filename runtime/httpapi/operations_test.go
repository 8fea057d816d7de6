package httpapi_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/httpapi"
)

// Every route is documented, so the OpenAPI document has no blank operation.
func TestOperationsDocumentEveryRoute(t *testing.T) {
	ops := httpapi.Operations()
	if len(ops) != len(httpapi.Routes()) {
		t.Fatalf("%d operations for %d routes", len(ops), len(httpapi.Routes()))
	}
	for _, op := range ops {
		if op.Summary == "" || op.Status == 0 || op.Response == nil || len(op.Errors) == 0 {
			t.Errorf("route %s is not documented: %+v", op.Name, op)
		}
		if (op.Key == httpapi.KeyRequired) != (op.Flow != "") {
			t.Errorf("route %s: Idempotency-Key %q, flow %q", op.Name, op.Key, op.Flow)
		}
	}
}

// docs/runtime.md's error table names every problem type of the problem table.
func TestRuntimeDocListsEveryProblemType(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "runtime.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| ") {
			rows = append(rows, line)
		}
	}
	table := strings.Join(rows, "\n")
	for _, p := range httpapi.ProblemTypes() {
		slug := strings.TrimPrefix(p.Type, httpapi.ProblemTypeBase)
		if !strings.Contains(table, "`"+slug+"`") {
			t.Errorf("docs/runtime.md's error table lacks %s (%d %s)", slug, p.Status, p.Title)
		}
	}
}
