package regionsim

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/schema"
)

// Quarantined is a ledger entry that is not part of its account's live
// chain: a write of an epoch that had been taken over, which arrived after
// the new owner started from its base. It is kept, never applied, and
// reported with its amount.
type Quarantined struct {
	Cell, Entry, Key, User string
	Amount                 int64
	// Reason is "duplicate" when the key's movement is live under another
	// entry (a retry applied it in the new owner: refund this one), "late"
	// otherwise (an acknowledged movement the new owner never saw: apply
	// it by hand or tell the customer).
	Reason string
}

// ownerRegion is where a cell's items are read for the audit: its home
// in the fenced design, the first Region in the naive one.
func (c *Cluster) ownerRegion(ctx context.Context, cell string) (string, error) {
	if c.cfg.Design == Naive {
		return c.cfg.Regions[0], nil
	}
	l, err := c.Leases.Get(ctx, cell)
	return l.Region, err
}

// Repair makes a cell's replicas identical after a crash dropped a
// backlog: an item one Region lacks is written again where it is, an item
// that differs is written again from the Region that wrote the cell last
// (its owner, or the Region a stopped planned failover is leaving), and
// replication carries the copies. It changes no item's content.
func (c *Cluster) Repair(ctx context.Context, cell string) (int, error) {
	owner, err := c.ownerRegion(ctx, cell)
	if err != nil {
		return 0, err
	}
	if from, ok := c.stopped[cell]; ok {
		owner = from
	}
	all := map[string]map[string]map[string]types.AttributeValue{}
	for _, r := range c.cfg.Regions {
		items, err := query(ctx, c.DB[r], cell, "")
		if err != nil {
			return 0, err
		}
		all[r] = map[string]map[string]types.AttributeValue{}
		for _, it := range items {
			all[r][str(it, schema.SortKey)] = it
		}
	}
	rewrites := 0
	seen := map[string]bool{}
	for _, r := range c.cfg.Regions {
		for sk := range all[r] {
			if seen[sk] {
				continue
			}
			seen[sk] = true
			from, same := "", true
			for _, o := range c.cfg.Regions {
				if !reflect.DeepEqual(all[o][sk], all[r][sk]) {
					same = false
				}
			}
			if same {
				continue
			}
			if all[owner][sk] != nil {
				from = owner
			} else {
				from = r
			}
			if _, err := c.DB[from].PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(Table), Item: all[from][sk]}); err != nil {
				return rewrites, err
			}
			rewrites++
		}
	}
	c.Rep.WaitQuiet()
	return rewrites, nil
}

// ledger is a cell's accounts and entries as the owner's replica has
// them.
type ledger struct {
	accounts map[string]map[int64]map[string]types.AttributeValue // user, epoch
	entries  map[string][]map[string]types.AttributeValue         // user
	quar     map[string]bool                                      // quarantined entry sort keys
	orders   map[string]map[string]types.AttributeValue
}

func (c *Cluster) readLedger(ctx context.Context, cell string) (ledger, string, error) {
	owner, err := c.ownerRegion(ctx, cell)
	if err != nil {
		return ledger{}, "", err
	}
	items, err := query(ctx, c.DB[owner], cell, "")
	if err != nil {
		return ledger{}, "", err
	}
	lg := ledger{accounts: map[string]map[int64]map[string]types.AttributeValue{}, entries: map[string][]map[string]types.AttributeValue{},
		quar: map[string]bool{}, orders: map[string]map[string]types.AttributeValue{}}
	for _, it := range items {
		sk := str(it, schema.SortKey)
		var user string
		switch {
		case hasPrefix(sk, "ACCT#"):
			user = field(sk, 1)
			if lg.accounts[user] == nil {
				lg.accounts[user] = map[int64]map[string]types.AttributeValue{}
			}
			lg.accounts[user][epochOf(sk)] = it
		case hasPrefix(sk, "LEDGER#"):
			lg.entries[field(sk, 1)] = append(lg.entries[field(sk, 1)], it)
		case hasPrefix(sk, "QUAR#"):
			lg.quar[sk[len("QUAR#"):]] = true
		case hasPrefix(sk, "ORDER#"):
			lg.orders[sk[len("ORDER#"):]] = it
		}
	}
	return lg, owner, nil
}

// live splits a user's entries into those its latest account counts
// (following each epoch's base back to the first) and the rest, and
// returns the latest balance.
func (lg ledger) live(user string, naive bool) (live, rest []map[string]types.AttributeValue, balance int64) {
	accts := lg.accounts[user]
	if naive {
		return lg.entries[user], nil, num(accts[0], "balance")
	}
	var latest int64
	for e := range accts {
		latest = max(latest, e)
	}
	upto := map[int64]int64{} // epoch -> highest live seq
	for e, hi := latest, num(accts[latest], "seq"); e > 0; {
		upto[e] = hi
		a := accts[e]
		if a == nil {
			break
		}
		e, hi = num(a, "base_epoch"), num(a, "base_seq")
	}
	for _, it := range lg.entries[user] {
		sk := str(it, schema.SortKey)
		seq := seqOf(sk)
		if hi, ok := upto[epochOf(sk)]; ok && seq <= hi {
			live = append(live, it)
		} else {
			rest = append(rest, it)
		}
	}
	return live, rest, num(accts[latest], "balance")
}

// Reconcile runs in each cell's owner Region after the Regions heal: every
// ledger entry outside its account's live chain is quarantined (a QUAR
// item in the owner's replica) and reported.
func (c *Cluster) Reconcile(ctx context.Context, cells []string) ([]Quarantined, error) {
	var out []Quarantined
	for _, cell := range cells {
		lg, owner, err := c.readLedger(ctx, cell)
		if err != nil {
			return nil, err
		}
		for _, user := range sortedKeys(lg.entries) {
			live, rest, _ := lg.live(user, c.cfg.Design == Naive)
			liveKeys := map[string]bool{}
			for _, it := range live {
				liveKeys[str(it, "key")] = true
			}
			for _, it := range rest {
				sk := str(it, schema.SortKey)
				q := Quarantined{Cell: cell, Entry: sk, Key: str(it, "key"), User: user, Amount: num(it, "amount"), Reason: "late"}
				if liveKeys[q.Key] {
					q.Reason = "duplicate"
				}
				out = append(out, q)
				if lg.quar[sk] {
					continue
				}
				if _, err := c.DB[owner].PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(Table), Item: map[string]types.AttributeValue{
					schema.PartitionKey: s(home.PK(cell)), schema.SortKey: s("QUAR#" + sk),
					"amount": n(q.Amount), "key": s(q.Key), "reason": s(q.Reason)}}); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// Ack is a movement the client was told succeeded.
type Ack struct {
	Request
	Outcome Outcome
}

// Audit checks a healed, quiet cluster: replicas identical, at most one
// live movement per key and per order, balances never negative, every
// live ledger summing to its balance, every acknowledged movement live or
// quarantined, and nothing quarantined in a cell that was never taken
// over. It returns the violations found.
func (c *Cluster) Audit(ctx context.Context, cells []string, opening map[string]int64, acked []Ack, takenOver map[string]bool) ([]string, error) {
	var v []string
	if q := c.Rep.WaitQuiet(); !q.Identical || q.Pending > 0 {
		v = append(v, fmt.Sprintf("replicas differ (%d pending): %v", q.Pending, q.Differences))
	}
	liveKeys, quarKeys := map[string]int{}, map[string]bool{}
	for _, cell := range cells {
		lg, _, err := c.readLedger(ctx, cell)
		if err != nil {
			return nil, err
		}
		paid := map[string]int{}
		for _, user := range sortedKeys(lg.accounts) {
			for e, a := range lg.accounts[user] {
				if b := num(a, "balance"); b < 0 {
					v = append(v, fmt.Sprintf("cell %s: %s's balance at epoch %d is %d", cell, user, e, b))
				}
			}
			live, rest, balance := lg.live(user, c.cfg.Design == Naive)
			sum := opening[user]
			for _, it := range live {
				sum += num(it, "amount")
				liveKeys[str(it, "key")]++
				if o := str(it, "order"); o != "" {
					paid[o]++
				}
			}
			if sum != balance {
				v = append(v, fmt.Sprintf("cell %s: %s's ledger sums to %d, its balance is %d", cell, user, sum, balance))
			}
			if sum < 0 {
				v = append(v, fmt.Sprintf("cell %s: %s's ledger sums to %d, below zero", cell, user, sum))
			}
			for _, it := range rest {
				sk := str(it, schema.SortKey)
				if !lg.quar[sk] {
					v = append(v, fmt.Sprintf("cell %s: entry %s is not live and not quarantined", cell, sk))
				}
				quarKeys[str(it, "key")] = true
				if !takenOver[cell] {
					v = append(v, fmt.Sprintf("cell %s: entry %s (key %s, %d) quarantined though the cell was never taken over", cell, sk, str(it, "key"), num(it, "amount")))
				}
			}
		}
		for o, k := range paid {
			if k > 1 {
				v = append(v, fmt.Sprintf("cell %s: order %s paid %d times", cell, o, k))
			}
		}
	}
	for k, cnt := range liveKeys {
		if cnt > 1 {
			v = append(v, fmt.Sprintf("key %s applied %d times", k, cnt))
		}
	}
	for _, a := range acked {
		if a.Outcome == Declined {
			continue
		}
		if liveKeys[a.Key] == 0 && !quarKeys[a.Key] {
			v = append(v, fmt.Sprintf("acknowledged %s %s of %d for %s is lost", a.Op, a.Key, a.Amount, a.User))
		}
	}
	sort.Strings(v)
	return v, nil
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// field is the i-th '#'-separated part of a sort key.
func field(sk string, i int) string {
	parts := splitHash(sk)
	if i < len(parts) {
		return parts[i]
	}
	return ""
}

func splitHash(sk string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(sk); i++ {
		if sk[i] == '#' {
			parts = append(parts, sk[start:i])
			start = i + 1
		}
	}
	return append(parts, sk[start:])
}

func seqOf(sk string) int64 {
	parts := splitHash(sk)
	var x int64
	fmt.Sscanf(parts[len(parts)-1], "%d", &x)
	return x
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
