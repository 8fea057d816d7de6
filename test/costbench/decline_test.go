package costbench_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the declines section of docs/cost.md")

const costPage = "../../docs/cost.md"

// declineCase is one request whose cost the declines section shows.
type declineCase struct {
	name, method, path, body, key string
	status                        int
}

// measureDeclines runs a declined debit, two declined settles (already
// paid, not charged), a declined refund, a declined cancel and a declined
// deliver and their replays, with a successful debit, refund, cancel and
// ship beside them, and renders the section of docs/cost.md
// that shows what storing a decline costs. The figures are deterministic
// (requests and the engine's capacity units), so the section is a golden.
func measureDeclines(t testing.TB) string {
	w := newWorld(t)
	u := w.user(t, 1000)
	paid := w.charged(t, u, 100)
	w.must(t, 200, "POST", "/orders/"+paid+"/settle", "settle-paid", "")
	unpaid := w.order(t, u, 100)
	toCancel := w.charged(t, u, 100)
	cases := []declineCase{
		{"debit, success (for comparison)", "POST", "/users/" + u + "/debits", `{"amount":10,"currency":"EUR"}`, "d-ok", 201},
		{"debit declined (402 insufficient funds), first call", "POST", "/users/" + u + "/debits", `{"amount":999999,"currency":"EUR"}`, "d-402", 402},
		{"debit declined, retried with the key", "POST", "/users/" + u + "/debits", `{"amount":999999,"currency":"EUR"}`, "d-402", 402},
		{"settle of a paid order (409 already paid), first call", "POST", "/orders/" + paid + "/settle", "", "s-409", 409},
		{"settle of a paid order, retried with the key", "POST", "/orders/" + paid + "/settle", "", "s-409", 409},
		{"settle of an order without its charge (409 not charged), first call", "POST", "/orders/" + unpaid + "/settle", "", "s-nc", 409},
		{"settle without its charge, retried with the key", "POST", "/orders/" + unpaid + "/settle", "", "s-nc", 409},
		{"refund, success (for comparison), first call", "POST", "/orders/" + paid + "/refunds", `{"amount":10,"currency":"EUR"}`, "r-ok", 201},
		{"refund, replay", "POST", "/orders/" + paid + "/refunds", `{"amount":10,"currency":"EUR"}`, "r-ok", 201},
		{"refund of more than is left (422 amount exceeds refundable), first call", "POST", "/orders/" + paid + "/refunds", `{"amount":1000,"currency":"EUR"}`, "r-422", 422},
		{"refund of more than is left, retried with the key", "POST", "/orders/" + paid + "/refunds", `{"amount":1000,"currency":"EUR"}`, "r-422", 422},
		{"cancel of a charged order, success (for comparison), first call", "POST", "/orders/" + toCancel + "/cancel", "", "x-ok", 200},
		{"cancel, replay", "POST", "/orders/" + toCancel + "/cancel", "", "x-ok", 200},
		{"cancel of a paid order (409 refund required), first call", "POST", "/orders/" + paid + "/cancel", "", "x-409", 409},
		{"cancel of a paid order, retried with the key", "POST", "/orders/" + paid + "/cancel", "", "x-409", 409},
		{"ship of a paid order, success (for comparison), first call", "POST", "/orders/" + paid + "/ship", "", "f-ok", 200},
		{"ship, replay", "POST", "/orders/" + paid + "/ship", "", "f-ok", 200},
		{"deliver of an unshipped order (409 invalid transition), first call", "POST", "/orders/" + unpaid + "/deliver", "", "f-409", 409},
		{"deliver of an unshipped order, retried with the key", "POST", "/orders/" + unpaid + "/deliver", "", "f-409", 409},
		{"debit refused by validation (400), first call", "POST", "/users/" + u + "/debits", `{"amount":1.5,"currency":"EUR"}`, "d-400", 400},
	}
	var b strings.Builder
	b.WriteString(declinesStart + `
## Declines

A money flow that started and was declined stores its answer under the Idempotency-Key, so that a retry
is refused the same way even after the state changed (docs/runtime.md, "Idempotency semantics"). The cost
is one conditional PutItem of the record, on the decline's path only: a success costs what it did, and a
retry of the decline is answered from the record like any replay. A request refused by validation before
it started stores nothing and costs no request. Measured by ` + "`go test ./test/costbench -run TestDeclineCost`" + `
(` + "`-update`" + ` rewrites this section; ` + "`make bench`" + ` writes it too), on the embedded engine, with the check of the
records' pre-upgrade place on as deployed; the engine reports no capacity for a cancelled transaction, so
the WCU column is the PutItem's and the successful transaction's.

| request | status | requests | requests made | WCU | RCU |
|---|---:|---:|---|---:|---:|
`)
	for _, c := range cases {
		var u usage
		r, _ := w.api.Handle(metered(context.Background(), &u), event(c.method, c.path, c.key, c.body))
		if r.StatusCode != c.status {
			t.Fatalf("%s: %d %s, want %d", c.name, r.StatusCode, r.Body, c.status)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %g | %g |\n", c.name, r.StatusCode, u.Requests, opsOf(u.Ops), u.WCU, u.RCU)
	}
	b.WriteString("\n" + declinesEnd)
	return b.String()
}

// declines is the section BenchmarkDeclines measured, for the report.
var declines string

// BenchmarkDeclines measures the declines section once for the report
// (make bench); its figures do not depend on b.N.
func BenchmarkDeclines(b *testing.B) { measureOnce(b, measureDeclines, &declines) }

// measureOnce runs measure once, whatever b.N, and keeps the section it
// renders in *into for the report.
func measureOnce(b *testing.B, measure func(testing.TB) string, into *string) {
	for range b.N {
	}
	section := measure(b)
	resultsMu.Lock()
	*into = section
	resultsMu.Unlock()
}

const (
	declinesStart = "<!-- declines: go test ./test/costbench -run TestDeclineCost -update -->"
	declinesEnd   = "<!-- end of declines -->"
)

// opsOf writes the requests made, counting repeats.
func opsOf(ops []string) string {
	if len(ops) == 0 {
		return "none"
	}
	n := map[string]int{}
	var order []string
	for _, op := range ops {
		if n[op] == 0 {
			order = append(order, op)
		}
		n[op]++
	}
	var parts []string
	for _, op := range order {
		if n[op] > 1 {
			parts = append(parts, fmt.Sprintf("%s ×%d", op, n[op]))
		} else {
			parts = append(parts, op)
		}
	}
	return strings.Join(parts, " + ")
}

// withSection replaces the section between start and end of page with
// section, or appends it when the page has none.
func withSection(page, section, start, end string) string {
	i, j := strings.Index(page, start), strings.Index(page, end)
	if i < 0 || j < i {
		return strings.TrimRight(page, "\n") + "\n\n" + section + "\n"
	}
	return page[:i] + section + page[j+len(end):]
}

// keepSection checks that docs/cost.md holds section between start and
// end (test names the test that rewrites it with -update), or rewrites it.
func keepSection(t *testing.T, section, start, end, test string) {
	t.Helper()
	page, err := os.ReadFile(costPage)
	if err != nil {
		t.Fatal(err)
	}
	want := withSection(string(page), section, start, end)
	if *update {
		if err := os.WriteFile(costPage, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != string(page) {
		t.Errorf("docs/cost.md's section differs from the measurement; rewrite it with go test ./test/costbench -run %s -update\ngot:\n%s", test, section)
	}
}

// TestDeclineCost pins what storing a decline costs and keeps the section
// of docs/cost.md that shows it true.
func TestDeclineCost(t *testing.T) {
	keepSection(t, measureDeclines(t), declinesStart, declinesEnd, "TestDeclineCost")
}
