package scalebench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/oncetable/oncetable/runtime/payments"
	"github.com/oncetable/oncetable/runtime/platform"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/test/population"
)

// PlatformTotals is the pattern of the platform accounts' totaller
// (runtime/platform): each call totals one ledger entry, of a user drawn
// by activity, in its own TransactWriteItems (the entry marked totalled,
// ADD on its counter-account's total on the shard the totaller picks), as
// a stream record delivered alone is totalled. The entries are credits
// made before the step (bench.refillEntries), so that only the
// totaller's writes are measured. A variant's PlatformShards sets the
// totals' shards: 1 is the single platform item the shards replace.
const PlatformTotals = "PlatformTotals"

// platformShards is the shard count of v's platform totals.
func (v Variant) platformShards() int {
	if v.PlatformShards > 0 {
		return v.PlatformShards
	}
	return platform.DefaultShards
}

// totalsPattern totals one entry of the pool per call; the conflicts the
// totaller met (and retried on the next shard) are counted in b.conflicts.
func (b *bench) totalsPattern() pattern {
	pl := b.pools
	hot := fmt.Sprintf("PLATFORM#funding#<shard> (%d shards)", b.variant.platformShards())
	return pattern{name: PlatformTotals, kind: "flow", hot: hot, entries: true, draw: func(*rand.Rand) call {
		return func(ctx context.Context) error {
			e, ok := pop(&pl.mu, &pl.entries)
			if !ok {
				return errEmpty
			}
			res, err := b.totaller.Total(ctx, []platform.Entry{e})
			b.conflicts.Add(int64(res.Conflicts))
			if err == nil && res.Totalled != 1 {
				return fmt.Errorf("scalebench: the totaller totalled %+v of one new entry", res)
			}
			return err
		}
	}}
}

// refillEntries tops the pool of untotalled entries up to n with credits
// of users drawn by activity, moving the engine's clock one burst forward
// before each, as refill does.
func (b *bench) refillEntries(ctx context.Context, n int, r *rand.Rand) error {
	pl := b.pools
	size := func() int {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		return len(pl.entries)
	}
	for size() < n {
		u := b.user(r)
		b.clock.advance(b.cfg.Burst + time.Second)
		amt := b.amount(100)
		resp, err := b.svc.Credit(ctx, population.Idem(payments.FlowCredit, b.key("totals")), u, amt)
		if err != nil {
			return fmt.Errorf("refill entries: %w", err)
		}
		var cr payments.CreditResult
		if err := json.Unmarshal(resp.Body, &cr); err != nil {
			return fmt.Errorf("refill entries: %w", err)
		}
		k, err := b.st.Keys().Ledger(u, cr.EntryID)
		if err != nil {
			return fmt.Errorf("refill entries: %w", err)
		}
		e := store.LedgerEntry{EntryID: cr.EntryID, UserID: u, Kind: store.LedgerCredit, Amount: amt.Minor, Currency: string(amt.Currency)}
		push(&pl.mu, &pl.entries, platform.EntryOf(k, e))
	}
	b.clock.advance(b.cfg.Burst + time.Second)
	return nil
}
