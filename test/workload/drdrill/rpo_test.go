package drdrill

import (
	"testing"
	"time"
)

func TestMeasure(t *testing.T) {
	point := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return point.Add(d) }
	ms := []Movement{
		{EntryID: "cr_early", Amount: 100, CommittedAt: at(-10 * time.Second)},
		{EntryID: "db_gone", Amount: 7, CommittedAt: at(-5 * time.Second)},
		{EntryID: "st_flight", Amount: 30, CommittedAt: at(-time.Second)},
		{EntryID: "cr_late", Amount: 50, CommittedAt: at(3 * time.Second)},
		{EntryID: "cr_later", Amount: 20, CommittedAt: at(8 * time.Second)},
		{EntryID: "db_kept_late", Amount: 9, CommittedAt: at(time.Second)},
	}
	restored := map[string]bool{"cr_early": true, "db_kept_late": true}
	r := measure(ms, restored, point, 2*time.Second)
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"kept", r.Kept, 1},
		{"lost", ids(r.Lost), "cr_late,cr_later"},
		{"lost amount", r.LostAmount, int64(100)},
		{"window", r.Window, 8 * time.Second},
		{"in flight", ids(r.InFlight), "st_flight"},
		{"missing", ids(r.Missing), "db_gone"},
		{"extra", ids(r.Extra), "db_kept_late"},
		{"ok", r.OK(), false},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
	if clean := measure(ms[:1], restored, point, 2*time.Second); !clean.OK() || clean.Kept != 1 || len(clean.Lost) != 0 {
		t.Errorf("a restore holding all before the point: %+v", clean)
	}
}

func ids(ms []Movement) string {
	s := ""
	for i, m := range ms {
		if i > 0 {
			s += ","
		}
		s += m.EntryID
	}
	return s
}
