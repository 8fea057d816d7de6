package obs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/obs"
)

// metricConsts are the string constants of package obs, by identifier.
func metricConsts(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "obs.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					out[n.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	return out
}

// emitted is one metric a call in the runtime emits.
type emitted struct {
	at              string
	namespace, name string
}

// emittedMetrics scans the Go files under roots for calls of Business,
// Fault, Reconcile, Totals and Canary (the emitters of *obs.Metrics) and resolves their metric argument,
// which must be a constant of package obs. EMF written by hand anywhere
// but the allowed files is reported as a name of its own.
func emittedMetrics(t *testing.T, consts map[string]string, allowEMF map[string]bool, roots ...string) (found []emitted, bad []string) {
	t.Helper()
	fset := token.NewFileSet()
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "ddblocal") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel := filepath.ToSlash(path)
			if strings.Contains(string(src), `"CloudWatchMetrics"`) && !allowEMF[strings.TrimPrefix(rel, "../../")] {
				bad = append(bad, rel+": writes EMF by hand; emit through obs.Metrics and a name of obs.Catalogue")
			}
			f, err := parser.ParseFile(fset, path, src, 0)
			if err != nil {
				return err
			}
			inObs := f.Name.Name == "obs"
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				// The emitters: Business(flow, name), Fault(flow, name),
				// Reconcile, Totals and Regions (table, name, value) and
				// Canary(user, name, value).
				namespace, args := map[string]string{"Business": obs.BusinessNamespace, "Fault": obs.FaultNamespace,
					"Reconcile": obs.ReconcileNamespace, "Totals": obs.TotalsNamespace, "Regions": obs.RegionsNamespace, "Canary": obs.CanaryNamespace}[sel.Sel.Name],
					map[string]int{"Business": 2, "Fault": 2, "Reconcile": 3, "Totals": 3, "Regions": 3, "Canary": 3}[sel.Sel.Name]
				if namespace == "" || len(call.Args) != args {
					return true
				}
				at := fset.Position(call.Pos()).String()
				var ident string
				switch a := call.Args[1].(type) {
				case *ast.SelectorExpr:
					if x, ok := a.X.(*ast.Ident); ok && x.Name == "obs" {
						ident = a.Sel.Name
					}
				case *ast.Ident:
					if inObs {
						ident = a.Name
					}
				}
				if inObs && ident == "name" {
					return true // the emitters themselves
				}
				value, ok := consts[ident]
				if !ok {
					bad = append(bad, at+": metric is not a constant of package obs")
					return true
				}
				found = append(found, emitted{at, namespace, value})
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return found, bad
}

// TestCatalogueCoversEveryEmittedMetric: every metric the runtime and the
// Lambda mains emit is in obs.Catalogue, which the constructs graph and
// alarm on, and every catalogue entry is emitted somewhere.
func TestCatalogueCoversEveryEmittedMetric(t *testing.T) {
	// restorevalidation's metrics have their own namespace and alarm
	// (constructs/backup, restore-validation-failed).
	allowEMF := map[string]bool{"runtime/obs/obs.go": true, "runtime/restorevalidation/validation.go": true}
	found, bad := emittedMetrics(t, metricConsts(t), allowEMF, filepath.Join("..", "..", "runtime"), filepath.Join("..", "..", "lambdas"))
	for _, b := range bad {
		t.Error(b)
	}
	used := map[string]bool{}
	for _, e := range found {
		if !obs.Known(e.namespace, e.name) {
			t.Errorf("%s emits %s %s, which obs.Catalogue does not list: no construct graphs or alarms on it", e.at, e.namespace, e.name)
		}
		used[e.namespace+" "+e.name] = true
	}
	for _, m := range obs.Catalogue() {
		if !used[m.Namespace+" "+m.Name] {
			t.Errorf("obs.Catalogue lists %s %s, which nothing emits", m.Namespace, m.Name)
		}
		if m.Meaning == "" {
			t.Errorf("%s %s has no meaning", m.Namespace, m.Name)
		}
	}
}

// TestCatalogueScanCatchesUnknownMetrics runs the scan over a fixture that
// emits a name missing from the catalogue, a string literal and EMF by hand.
func TestCatalogueScanCatchesUnknownMetrics(t *testing.T) {
	consts := metricConsts(t)
	found, bad := emittedMetrics(t, consts, nil, filepath.Join("testdata", "emitters"))
	var unknown []string
	for _, e := range found {
		if !obs.Known(e.namespace, e.name) {
			unknown = append(unknown, e.name)
		}
	}
	if len(unknown) != 1 || unknown[0] != obs.KeyReused {
		t.Errorf("unknown metrics = %v, want [%s] (emitted as a fault)", unknown, obs.KeyReused)
	}
	if len(bad) != 2 {
		t.Errorf("bad emitters = %q, want the literal and the hand-written EMF", bad)
	}
}
