package ddblocal

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/wire/ddb"
	"github.com/oncetable/oncetable/runtime/ddblocal/wire/streams"
)

// protocolErrorCodes are the errors of AWS's JSON protocol and of its
// request signing, common to every service and so in no service's model.
var protocolErrorCodes = []string{
	CodeValidation, CodeSerialization, CodeUnknownOperation,
	"UnrecognizedClientException", "AccessDeniedException", "InvalidSignatureException",
	"MissingAuthenticationTokenException", "IncompleteSignatureException",
}

// cancellationReasonCodes are the codes of a TransactionCanceledException's
// CancellationReasons (TransactWriteItems, API Reference), a string in the
// model.
var cancellationReasonCodes = []string{
	"None", "ConditionalCheckFailed", "ItemCollectionSizeLimitExceeded", "TransactionConflict",
	"ProvisionedThroughputExceeded", "ThrottlingError", "ValidationError",
}

var errorCodeLike = regexp.MustCompile(`^"[A-Z][A-Za-z]*(Exception|Error|Exceeded)"$`)

// errorCodeLiterals are the string literals of file that name an error
// code: newError's first argument, an APIError's or a CancellationReason's
// Code, and a constant whose value is an …Exception.
func errorCodeLiterals(file *ast.File) []*ast.BasicLit {
	var out []*ast.BasicLit
	keep := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING && errorCodeLike.MatchString(lit.Value) {
			out = append(out, lit)
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "newError" && len(x.Args) > 0 {
				keep(x.Args[0])
			}
		case *ast.KeyValueExpr:
			if id, ok := x.Key.(*ast.Ident); ok && id.Name == "Code" {
				keep(x.Value)
			}
		case *ast.ValueSpec:
			for _, v := range x.Values {
				if lit, ok := v.(*ast.BasicLit); ok && strings.HasSuffix(lit.Value, `Exception"`) {
					keep(v)
				}
			}
		}
		return true
	})
	return out
}

// Every error code the engine's source names is one of the model's, of the
// protocol's or a cancellation reason's: a code typed by hand that DynamoDB
// does not send fails here.
func TestErrorCodesAreTheModels(t *testing.T) {
	known := slices.Concat(ddb.ErrorCodes, streams.ErrorCodes, protocolErrorCodes, cancellationReasonCodes, ddb.BatchStatementErrorCodeEnumValues)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, lit := range errorCodeLiterals(file) {
			seen++
			if s, _ := strconv.Unquote(lit.Value); !slices.Contains(known, s) {
				t.Errorf("%s: %s is no error code of DynamoDB's model, of the JSON protocol or of a cancellation reason", fset.Position(lit.Pos()), lit.Value)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no error code found in the source: the scan is broken")
	}
}
