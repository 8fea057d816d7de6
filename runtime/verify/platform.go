package verify

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/store"
)

// platformSums are, per "account currency", the stored total (Stored) and
// the platform legs of the entries marked totalled (Legs).
type platformSums map[string]PlatformSum

// PlatformSum is one platform account's stored total in one currency
// against the legs of the entries the totaller marked.
type PlatformSum struct {
	Stored int64 `json:"stored" dynamodbav:"stored"`
	Legs   int64 `json:"legs" dynamodbav:"legs"`
}

func (p platformSums) merge(o platformSums) platformSums {
	if len(o) == 0 {
		return p
	}
	out := maps.Clone(p)
	if out == nil {
		out = platformSums{}
	}
	for k, v := range o {
		s := out[k]
		s.Stored += v.Stored
		s.Legs += v.Legs
		out[k] = s
	}
	return out
}

// stored adds a total item's amounts.
func (p platformSums) stored(item map[string]types.AttributeValue) platformSums {
	account, byCur := platform.TotalOf(item)
	add := platformSums{}
	for cur, v := range byCur {
		add[account+" "+cur] = PlatformSum{Stored: v}
	}
	return p.merge(add)
}

// totalled adds the platform legs of a ledger entry marked totalled to c,
// or counts it as not totalled yet.
func (r *reader) totalled(item map[string]types.AttributeValue, c *counts) error {
	if _, done := item[store.TotalledAttribute]; !done {
		c.Untotalled++
		return nil
	}
	var e store.LedgerEntry
	if err := r.items.Unmarshal(item, &e); err != nil {
		return err
	}
	add := platformSums{}
	for _, l := range e.Posting() {
		if platform.IsPlatform(l.Account) {
			s := add[l.Account+" "+e.Currency]
			s.Legs += l.Amount
			add[l.Account+" "+e.Currency] = s
		}
	}
	c.Platform = c.Platform.merge(add)
	return nil
}

// checkPlatform reports each account and currency whose stored total is
// not the sum of its totalled legs. A table scanned while it takes writes
// is not a snapshot of totals and entries at one instant, so Confirm does
// not confirm these: they hold on a restored table or one without traffic.
func checkPlatform(p platformSums, untotalled int64, add func(Violation)) {
	for _, k := range slices.Sorted(maps.Keys(p)) {
		s := p[k]
		if s.Stored == s.Legs {
			continue
		}
		account, cur, _ := strings.Cut(k, " ")
		add(Violation{Kind: PlatformTotalMismatch, Keys: []Key{},
			Detail: fmt.Sprintf("%s %s: stored total %d, but the entries marked totalled have platform legs of %d (off by %d; %d entries not yet totalled are lag, not counted)",
				account, cur, s.Stored, s.Legs, s.Stored-s.Legs, untotalled)})
	}
}
