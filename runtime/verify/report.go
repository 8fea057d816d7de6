package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Report is the result of a check.
type Report struct {
	Table string `json:"table"`
	// OK is true when no invariant is broken.
	OK bool `json:"ok"`
	// Violations lists the violations found, by Kinds order, at most
	// Options.MaxViolations (Truncated then says more were found).
	Violations []Violation `json:"violations"`
	Truncated  bool        `json:"truncated"`
	// Counts counts every violation found by kind.
	Counts map[Kind]int `json:"counts"`

	// What the scan read.
	Items         int64 `json:"items"`
	Users         int64 `json:"users"`
	LedgerEntries int64 `json:"ledgerEntries"`
	Orders        int64 `json:"orders"`
	Summaries     int64 `json:"summaries"`
	Payments      int64 `json:"payments"`
	Records       int64 `json:"idempotencyRecords"`
	OtherItems    int64 `json:"otherItems"`
	// Untotalled counts the ledger entries the platform totaller has not
	// reached yet: its lag, not a violation.
	Untotalled int64 `json:"untotalledEntries"`
	Pages      int64 `json:"pages"`
	// ConsumedRCU is the read capacity the Scan pages reported consuming.
	ConsumedRCU    float64       `json:"consumedRCU"`
	ConsistentRead bool          `json:"consistentRead"`
	Segments       int           `json:"segments"`
	Buckets        int           `json:"buckets"`
	Elapsed        time.Duration `json:"elapsedNs"`
}

// Total is the number of violations found.
func (r *Report) Total() int {
	n := 0
	for _, c := range r.Counts {
		n += c
	}
	return n
}

// finish sets OK.
func (r *Report) finish() { r.OK = r.Total() == 0 }

// RCUPerMillionItems is the consumed read capacity scaled to a million items.
func (r *Report) RCUPerMillionItems() float64 {
	if r.Items == 0 {
		return 0
	}
	return r.ConsumedRCU / float64(r.Items) * 1e6
}

// Transactions lists the distinct transactions the violations name, in
// report order.
func (r *Report) Transactions() []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range r.Violations {
		if v.Transaction != "" && !seen[v.Transaction] {
			seen[v.Transaction] = true
			out = append(out, v.Transaction)
		}
	}
	return out
}

// WriteJSON writes r as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	out := *r
	if out.Violations == nil {
		out.Violations = []Violation{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteText writes r for a reader: a summary line, then one block per
// violation with its keys.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	status := "OK"
	if !r.OK {
		status = fmt.Sprintf("FAILED: %d violations", r.Total())
	}
	fmt.Fprintf(&b, "verify %s: %s\n", r.Table, status)
	fmt.Fprintf(&b, "  read %d items (%d users, %d ledger entries, %d orders, %d summaries, %d payments, %d idempotency records, %d other)\n",
		r.Items, r.Users, r.LedgerEntries, r.Orders, r.Summaries, r.Payments, r.Records, r.OtherItems)
	fmt.Fprintf(&b, "  %d ledger entries not yet in the platform totals (the totaller's lag)\n", r.Untotalled)
	consistency := "eventually consistent"
	if r.ConsistentRead {
		consistency = "strongly consistent"
	}
	fmt.Fprintf(&b, "  %d pages, %d segments, %s, %.1f RCU consumed (%.0f RCU per million items), %d spill buckets, %s\n",
		r.Pages, r.Segments, consistency, r.ConsumedRCU, r.RCUPerMillionItems(), r.Buckets, r.Elapsed.Round(time.Millisecond))
	for _, k := range Kinds {
		if n := r.Counts[k]; n > 0 {
			fmt.Fprintf(&b, "  %-26s %d\n", k, n)
		}
	}
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "%s: %s\n", v.Kind, v.Detail)
		if v.Transaction != "" {
			fmt.Fprintf(&b, "  transaction: %s\n", v.Transaction)
		}
		for _, k := range v.Keys {
			fmt.Fprintf(&b, "  key: PK=%s SK=%s\n", k.PK, k.SK)
		}
	}
	if r.Truncated {
		fmt.Fprintf(&b, "(%d more violations not listed)\n", r.Total()-len(r.Violations))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
