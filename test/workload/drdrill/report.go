package drdrill

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteResult writes the drill's result: the live table's verdict, the
// restored table's report, the RTO, the RPO and the verdict.
func (r *Report) WriteResult(w io.Writer) {
	var b strings.Builder
	c := r.Soak.Counts()
	fmt.Fprintf(&b, "dr-drill: traffic done: %d requests, %d ledger entries, %d live-table violations\n",
		c.Attempts, len(r.Soak.State.Ledger), len(r.Soak.Violations))
	r.Check.WriteText(&b)
	fmt.Fprintf(&b, "RTO: %s (restore %s + verify %s, %d items)\n", r.RTO().Round(time.Millisecond),
		r.Restore.Round(time.Millisecond), r.Verify.Round(time.Millisecond), r.Check.Items)
	p := r.RPO
	fmt.Fprintf(&b, "RPO: %d money movements committed after the restore point are not in the restored table (%d minor units), "+
		"the last %s after it; %d more stamped within %s before it were in flight; %d movements up to the point, %d restored\n",
		len(p.Lost), p.LostAmount, p.Window.Round(time.Millisecond), len(p.InFlight), p.Slack, p.Kept+len(p.Missing), p.Kept)
	for _, m := range p.Missing {
		fmt.Fprintf(&b, "  MISSING: %s %s of user %s for %d, committed %s before the restore point\n",
			m.Kind, m.EntryID, m.UserID, m.Amount, p.Point.Sub(m.CommittedAt).Round(time.Millisecond))
	}
	for _, m := range p.Extra {
		fmt.Fprintf(&b, "  EXTRA: %s %s of user %s for %d, committed %s after the restore point\n",
			m.Kind, m.EntryID, m.UserID, m.Amount, m.CommittedAt.Sub(p.Point).Round(time.Millisecond))
	}
	b.WriteString(r.verdict())
	io.WriteString(w, b.String())
}

func (r *Report) verdict() string {
	txns := r.Check.Transactions()
	switch {
	case len(r.Soak.Violations) > 0:
		return fmt.Sprintf("verdict: FAILED: the live table broke %d invariants during the traffic (see above)\n", len(r.Soak.Violations))
	case r.Config.Torn && !r.Check.OK && len(txns) > 0:
		return "verdict: RESTORE REJECTED, as it must be: the verifier caught the torn backup; torn transaction: " +
			strings.Join(txns, "; ") + "\n"
	case r.Config.Torn:
		return "verdict: FAILED: the torn-backup fault was on, yet the verifier found no torn transaction\n"
	case !r.Check.OK:
		return fmt.Sprintf("verdict: FAILED: the restored table breaks %d money invariants; transactions: %s\n",
			r.Check.Total(), strings.Join(txns, "; "))
	case !r.RPO.OK():
		return "verdict: FAILED: the restored table does not hold exactly what was committed by the restore point\n"
	}
	return "verdict: PASSED: the restored table breaks no money invariant and holds every movement committed by the restore point\n"
}
