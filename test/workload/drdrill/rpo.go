package drdrill

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/oncetable/oncetable/runtime/outbox"
	"github.com/oncetable/oncetable/test/workload"
)

// Movement is one ledger entry as the events pipeline delivered it.
type Movement struct {
	EntryID     string
	Kind        string
	UserID      string
	Amount      int64
	CommittedAt time.Time
}

// RPO is what a restore to Point lost of the money movements committed.
type RPO struct {
	Point time.Time
	// Lost are the movements committed after Point that the restored
	// table lacks: the data a restore to Point gives up.
	Lost       []Movement
	LostAmount int64 // sum of the amounts of Lost and InFlight, every currency together
	// Window is the span from Point to the last lost movement's commit.
	Window time.Duration
	// Kept counts the movements committed up to Point, all of which the
	// restored table must hold; Missing are those it lacks (a restore
	// that lost committed data) and Extra the movements committed after
	// Point that it holds (a restore past its point).
	Kept    int
	Missing []Movement
	Extra   []Movement
	// InFlight are movements stamped within Slack before Point that the
	// restored table lacks: an entry's committedAt is the time its
	// transaction was built, which commits up to one attempt's latency
	// later, so it may have committed after Point. Lost, not missing.
	InFlight []Movement
	Slack    time.Duration
}

// OK reports whether the restore holds exactly what was committed by Point.
func (r RPO) OK() bool { return len(r.Missing) == 0 && len(r.Extra) == 0 }

// movements reads the ledger entries' events out of the event log, once
// per event id.
func movements(log *workload.EventLog) []Movement {
	seen := map[string]bool{}
	var out []Movement
	for _, a := range log.Arrivals {
		if seen[a.ID] || (a.Type != string(outbox.CreditPosted) && a.Type != string(outbox.DebitPosted)) {
			continue
		}
		var ev outbox.Event
		if json.Unmarshal([]byte(a.Detail), &ev) != nil || ev.EntryID == "" {
			continue
		}
		seen[a.ID] = true
		out = append(out, Movement{EntryID: ev.EntryID, Kind: ev.Kind, UserID: ev.UserID, Amount: ev.Amount, CommittedAt: ev.CommittedAt})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CommittedAt.Before(out[j].CommittedAt) })
	return out
}

// measure compares the movements with the ledger entries the restored
// table holds.
func measure(ms []Movement, restored map[string]bool, point time.Time, slack time.Duration) RPO {
	r := RPO{Point: point, Slack: slack}
	for _, m := range ms {
		after := m.CommittedAt.After(point)
		switch {
		case after && !restored[m.EntryID]:
			r.Lost = append(r.Lost, m)
			r.LostAmount += m.Amount
			r.Window = max(r.Window, m.CommittedAt.Sub(point))
		case after:
			r.Extra = append(r.Extra, m)
		case restored[m.EntryID]:
			r.Kept++
		case m.CommittedAt.After(point.Add(-slack)):
			r.InFlight = append(r.InFlight, m)
			r.LostAmount += m.Amount
		default:
			r.Missing = append(r.Missing, m)
		}
	}
	return r
}
