package platform

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/store"
)

// ScanDB is the part of the DynamoDB client Conserve uses.
type ScanDB interface {
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// Sheet is the platform's balance sheet: what its accounts hold, stored
// and not yet totalled, against every user's posted money.
type Sheet struct {
	// Stored are the platform accounts' stored totals (their shards
	// summed), Pending the platform legs of entries not totalled yet.
	Stored, Pending Sums
	// Users is every user's posted money (balance plus open holds) by
	// currency.
	Users map[string]int64
	// Untotalled counts the entries in Pending: the totaller's lag.
	Untotalled int64
	// Items is what the scan read.
	Items int64
}

// Net is, by currency, the users' posted money plus the platform accounts'
// stored and pending totals: zero for every currency when money is
// conserved.
func (s Sheet) Net() map[string]int64 {
	out := map[string]int64{}
	for cur, v := range s.Users {
		out[cur] += v
	}
	for _, sums := range []Sums{s.Stored, s.Pending} {
		for cur, v := range sums.ByCurrency() {
			out[cur] += v
		}
	}
	return out
}

// Conserved reports whether Net is zero in every currency.
func (s Sheet) Conserved() bool {
	for _, v := range s.Net() {
		if v != 0 {
			return false
		}
	}
	return true
}

// Conserve reads the whole table (one Scan, strongly consistent) into a
// Sheet. On a table that takes writes meanwhile a scan is not a snapshot:
// a flow that commits between two pages can show as a difference; a
// restored table, or one without traffic, is exact.
func Conserve(ctx context.Context, db ScanDB, opts ...func(*Options)) (Sheet, error) {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	o = o.withDefaults()
	b := store.NewBuilder(o.Table, o.Schema)
	sh := Sheet{Stored: Sums{}, Pending: Sums{}, Users: map[string]int64{}}
	in := &dynamodb.ScanInput{TableName: aws.String(o.Table), ConsistentRead: aws.Bool(true)}
	for {
		out, err := db.Scan(ctx, in)
		if err != nil {
			return Sheet{}, fmt.Errorf("platform: scan %s: %w", o.Table, err)
		}
		for _, item := range out.Items {
			sh.Items++
			if err := sh.add(b, item); err != nil {
				return Sheet{}, err
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return sh, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func (s *Sheet) add(b store.Builder, item map[string]types.AttributeValue) error {
	et, _ := item[b.Schema.EntityType].(*types.AttributeValueMemberS)
	if et == nil {
		return nil
	}
	switch et.Value {
	case store.TypeUser:
		var u store.User
		if err := b.Unmarshal(item, &u); err != nil {
			return fmt.Errorf("platform: a profile: %w", err)
		}
		posted := u.Balance
		for _, h := range u.Holds {
			posted += h.Amount
		}
		if posted != 0 {
			s.Users[u.Currency] += posted
		}
	case store.TypeLedgerEntry:
		if _, done := item[store.TotalledAttribute]; done {
			return nil
		}
		var e store.LedgerEntry
		if err := b.Unmarshal(item, &e); err != nil {
			return fmt.Errorf("platform: a ledger entry: %w", err)
		}
		s.Untotalled++
		for _, l := range EntryOf(keysOf(b, item), e).Legs {
			s.Pending.Add(l.Account, e.Currency, l.Amount)
		}
	case store.TypePlatformTotal:
		account, byCur := TotalOf(item)
		for cur, v := range byCur {
			s.Stored.Add(account, cur, v)
		}
	}
	return nil
}

// WriteText writes the sheet for an operator: each platform account's
// stored total and pending legs by currency, the users' posted money, and
// the net per currency.
func (s Sheet) WriteText(w io.Writer) error {
	var out strings.Builder
	accounts := map[string]bool{}
	for _, a := range append(s.Stored.Accounts(), s.Pending.Accounts()...) {
		accounts[a] = true
	}
	fmt.Fprintf(&out, "%-20s %-8s %20s %20s\n", "account", "currency", "stored", "not yet totalled")
	for _, a := range slices.Sorted(maps.Keys(accounts)) {
		curs := map[string]bool{}
		for c := range s.Stored[a] {
			curs[c] = true
		}
		for c := range s.Pending[a] {
			curs[c] = true
		}
		for _, c := range slices.Sorted(maps.Keys(curs)) {
			fmt.Fprintf(&out, "%-20s %-8s %20d %20d\n", a, c, s.Stored[a][c], s.Pending[a][c])
		}
	}
	for _, c := range slices.Sorted(maps.Keys(s.Users)) {
		fmt.Fprintf(&out, "%-20s %-8s %20d\n", "users (posted)", c, s.Users[c])
	}
	net := s.Net()
	for _, c := range slices.Sorted(maps.Keys(net)) {
		fmt.Fprintf(&out, "%-20s %-8s %20d\n", "net", c, net[c])
	}
	verdict := "conserved: users and platform accounts sum to zero in every currency"
	if !s.Conserved() {
		verdict = "NOT conserved: the net above is not zero"
	}
	fmt.Fprintf(&out, "%s; %d entries not yet totalled; %d items read\n", verdict, s.Untotalled, s.Items)
	_, err := io.WriteString(w, out.String())
	return err
}

// CatchUp totals, through t, every ledger entry the totaller has not
// marked: the entries a stream no longer holds (written before the
// totaller was deployed, or older than the stream's 24 hours when its
// mapping was stopped). Running it beside the stream's totaller is safe:
// each entry is counted once, by whichever marks it first. It scans the
// table (strongly consistent) and returns what Total did.
func CatchUp(ctx context.Context, db ScanDB, t *Totaller) (Result, error) {
	b := t.b
	in := &dynamodb.ScanInput{TableName: aws.String(t.o.Table), ConsistentRead: aws.Bool(true)}
	var res Result
	for {
		out, err := db.Scan(ctx, in)
		if err != nil {
			return res, fmt.Errorf("platform: scan %s: %w", t.o.Table, err)
		}
		var entries []Entry
		for _, item := range out.Items {
			et, _ := item[b.Schema.EntityType].(*types.AttributeValueMemberS)
			if _, done := item[store.TotalledAttribute]; et == nil || et.Value != store.TypeLedgerEntry || done {
				continue
			}
			var e store.LedgerEntry
			if err := b.Unmarshal(item, &e); err != nil {
				return res, fmt.Errorf("platform: a ledger entry: %w", err)
			}
			entries = append(entries, EntryOf(keysOf(b, item), e))
		}
		r, err := t.Total(ctx, entries)
		res.add(r)
		if err != nil {
			return res, err
		}
		if len(out.LastEvaluatedKey) == 0 {
			return res, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
