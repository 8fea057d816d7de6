package retry_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repo is the oncetable repository, from this module's directory.
const repo = "../.."

// TestEveryClientIsBuiltByNewClient fails when code of a function or a
// command (lambdas/, runtime/) builds a DynamoDB client itself, with
// dynamodb.New or dynamodb.NewFromConfig, instead of through
// retry.NewClient: such a client has the SDK's standard retryer, whose
// sends multiply with this package's. Left out: the engine
// (runtime/ddblocal builds clients for its users, who choose their
// retryer) and the tests' endpoint helper (runtime/ddbtest).
func TestEveryClientIsBuiltByNewClient(t *testing.T) {
	if mod, err := os.ReadFile(filepath.Join(repo, "go.mod")); err != nil || !strings.Contains(string(mod), "module github.com/oncetable/oncetable\n") {
		t.Skip("not inside the oncetable repository")
	}
	allowed := map[string]bool{"runtime/retry/client.go": true}
	skip := map[string]bool{"runtime/ddblocal": true, "runtime/ddbtest": true}
	scanned := 0
	for _, top := range []string{"lambdas", "runtime"} {
		err := filepath.WalkDir(filepath.Join(repo, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(repo, path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if skip[rel] || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || allowed[rel] {
				return nil
			}
			scanned++
			for _, call := range clientCalls(t, path) {
				t.Errorf("%s:%d: %s builds a DynamoDB client with the SDK's retryer; build it with retry.NewClient", rel, call.line, call.name)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if scanned < 50 {
		t.Fatalf("scanned %d files of lambdas/ and runtime/, want the whole tree", scanned)
	}
}

type clientCall struct {
	name string
	line int
}

// clientCalls lists the calls of dynamodb.New and dynamodb.NewFromConfig
// in the file at path, under whatever name it imports the package.
func clientCalls(t *testing.T, path string) []clientCall {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	name := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"github.com/aws/aws-sdk-go-v2/service/dynamodb"` {
			name = "dynamodb"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" {
		return nil
	}
	var calls []clientCall
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && (sel.Sel.Name == "New" || sel.Sel.Name == "NewFromConfig") {
			calls = append(calls, clientCall{name: name + "." + sel.Sel.Name, line: fset.Position(call.Pos()).Line})
		}
		return true
	})
	return calls
}
