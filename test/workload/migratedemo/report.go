package migratedemo

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/oncetable/oncetable/test/machine"
)

// WriteEnd writes the demo's last lines: the soak's counts, the violations,
// the `verified` line and the `lost:` line.
func (r *Report) WriteEnd(w io.Writer) {
	ix := r.Index
	if r.Verified != "" {
		fmt.Fprintf(w, "verified: %s\n", r.Verified)
	} else {
		fmt.Fprintln(w, "NOT verified: no verify of the migration passed")
	}
	fmt.Fprintf(w, "lost: %d (of %d orders in the table, %d rows read across %d shards of OrdersByStatus: %d missing, %d stale, %d rows of no order)\n",
		ix.Lost(), ix.Orders, ix.Rows, r.Config.Shards, ix.Missing, ix.Stale, ix.Ghosts)
	fmt.Fprintf(w, "orders still carrying GSI1PK/GSI1SK: %d; GSI1 on the table: %v\n", ix.Retired, ix.GSI1)
	fmt.Fprintf(w, "soak invariants: %d violations\n", len(r.Soak.Violations))
	if r.Soak.During != nil {
		fmt.Fprintf(w, "migration: FAILED: %v\n", r.Soak.During)
	}
}

// Markdown is the demo's section of docs/migrations.md.
func (r *Report) Markdown(command string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s Settings: %d clients, seed %d, fault windows of %s (faults %s), partition throughput on at %.0f write and %.0f read units per partition-key value per second (scaled down from 1,000 and 3,000), %d shards.\n\n",
		machine.Measured(command, time.Now()), r.Config.Clients, r.Config.Seed, r.Config.Phase, onOff(!r.Config.NoFaults), r.Config.WriteUnits, r.Config.ReadUnits, r.Config.Shards)
	b.WriteString("```\n")
	for _, l := range r.Lines {
		b.WriteString(l + "\n")
	}
	r.WriteEnd(&b)
	b.WriteString("```\n\n")
	var sum bytes.Buffer
	r.Soak.WriteSummary(&sum)
	b.WriteString("<details><summary>The soak's summary</summary>\n\n")
	b.WriteString(sum.String())
	b.WriteString("\n</details>\n")
	if len(r.Soak.Violations) > 0 {
		var v bytes.Buffer
		r.Soak.WriteViolations(&v)
		b.WriteString("\n## Violations\n\n```\n" + v.String() + "```\n")
	}
	return b.String()
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// UpdateSection replaces the text between the lines
// "<!-- BEGIN name -->" and "<!-- END name -->" of the file at path with
// body, or appends the marked section when the file has none.
func UpdateSection(path, name, body string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	begin, end := "<!-- BEGIN "+name+" (generated, do not edit) -->\n", "<!-- END "+name+" -->\n"
	s := string(old)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	switch {
	case i >= 0 && j > i:
		s = s[:i+len(begin)] + body + s[j:]
	case i < 0 && j < 0:
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		s += "\n" + begin + body + end
	default:
		return fmt.Errorf("migratedemo: %s has a broken %q section", path, name)
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
