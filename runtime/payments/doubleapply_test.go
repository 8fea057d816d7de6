package payments_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/verify"
)

// TestDoubleApplyAcrossRegionsIsNamed: the ids a flow makes derive from
// (caller, operation, key), so one request applied in two Regions of the
// engine's global table (here by unfenced services, as a takeover leaves
// it when the old home's backlog arrives late) leaves two ledger entries
// of one origin, and the verifier names them, with the amount to refund,
// on either replica. Each flow of a user's balance is one case.
func TestDoubleApplyAcrossRegionsIsNamed(t *testing.T) {
	ctx := context.Background()
	type flow func(svc *payments.Service, user string) (payments.Response, error)
	tests := []struct {
		name string
		kind string
		run  flow
	}{
		{"credit", "credit", func(svc *payments.Service, user string) (payments.Response, error) {
			return svc.Credit(ctx, idem("credit", "k-1", "/users/"+user+"/credits", 300), user, eur(300))
		}},
		{"debit", "debit", func(svc *payments.Service, user string) (payments.Response, error) {
			return svc.Debit(ctx, idem("debit", "k-1", "/users/"+user+"/debits", 300), user, eur(300))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTwoRegions(t)
			w.home("alice", east)
			naive := map[string]*payments.Service{east: payments.New(w.st[east]), west: payments.New(w.st[west])}
			if _, err := naive[east].Credit(ctx, idem("credit", "seed", "/users/alice/credits", 1000), "alice", eur(1000)); err != nil {
				t.Fatal(err)
			}
			w.replicate()

			w.eng.Replication().Partition(east, west)
			var ids []string
			for _, r := range []string{east, west} {
				resp, err := tt.run(naive[r], "alice")
				if err != nil || resp.Replayed {
					t.Fatalf("%s in %s: %+v, %v; want a first apply", tt.name, r, resp, err)
				}
				ids = append(ids, entryIDOf(t, resp.Body))
				w.clock.Advance(1500 * time.Millisecond)
			}
			w.eng.Replication().Heal(east, west)
			w.replicate()

			if ids[0] == ids[1] {
				t.Fatalf("both Regions made entry %s", ids[0])
			}
			o0, err0 := keys.IDOrigin(ids[0])
			o1, err1 := keys.IDOrigin(ids[1])
			if err0 != nil || err1 != nil || o0 != o1 {
				t.Fatalf("IDOrigin(%s) = %s, %v; IDOrigin(%s) = %s, %v; want one origin", ids[0], o0, err0, ids[1], o1, err1)
			}
			for _, r := range []string{east, west} {
				rep, err := verify.Table(ctx, w.db[r], func(o *verify.Options) { o.Table, o.MaxRCU, o.Clock = w.table, -1, w.clock.Now })
				if err != nil {
					t.Fatal(err)
				}
				var dup []verify.Violation
				for _, v := range rep.Violations {
					if v.Kind == verify.DuplicateEffect {
						dup = append(dup, v)
					}
				}
				want := fmt.Sprintf("user alice: the %s %s for 300 and the %s %s for 300 come from one request", tt.kind, ids[0], tt.kind, ids[1])
				if len(dup) != 1 || dup[0].UserID != "alice" || len(dup[0].Keys) != 2 || dup[0].Detail[:len(want)] != want {
					t.Errorf("%s's replica: duplicate-effect violations %+v, want one starting %q", r, dup, want)
				}
			}
		})
	}
}

// entryIDOf reads the entryId of a credit or debit's answer.
func entryIDOf(t *testing.T, body []byte) string {
	t.Helper()
	var b struct {
		EntryID string `json:"entryId"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.EntryID == "" {
		t.Fatalf("answer %s: entryId %q, %v", body, b.EntryID, err)
	}
	return b.EntryID
}
