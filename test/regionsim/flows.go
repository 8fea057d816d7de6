package regionsim

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/home"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/txn"
)

// Op is a money flow.
type Op string

// The flows: a charge credits the account, a debit takes from it if the
// balance covers it, a settle pays an open order from the account.
const (
	Charge Op = "charge"
	Debit  Op = "debit"
	Settle Op = "settle"
)

// Request is one call of a flow, under its idempotency key.
type Request struct {
	Op     Op
	Cell   string
	User   string
	Key    string
	Amount int64  // minor units, > 0
	Order  string // settle only
}

// Outcome is what a flow answered.
type Outcome string

const (
	Applied  Outcome = "applied"
	Replayed Outcome = "replayed"
	Declined Outcome = "declined" // insufficient funds or order not open
)

// Result is a flow's answer.
type Result struct {
	Outcome   Outcome
	Region    string // where it committed or was read
	Entry     string // the ledger entry's sort key
	Forwarded bool   // the Region the request reached forwarded it to the home Region
}

// ErrUnreachable is a request to a crashed Region.
var ErrUnreachable = errors.New("regionsim: Region unreachable")

// ErrLeaseStore is the lease store failing to answer: its Region cannot
// reach a majority of the MRSC table's Regions.
var ErrLeaseStore = errors.New("regionsim: lease store unavailable")

// storeErr marks an error of the lease store other than a lost
// condition as ErrLeaseStore.
func storeErr(err error) error {
	if err == nil || errors.Is(err, home.ErrLeaseConflict) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrLeaseStore, err)
}

// Handle serves req in the Region it reached. The naive design writes
// there. The fenced design forwards it to the cell's home Region, or
// refuses it with *home.FrozenError (503 with Retry-After) when the home
// is unreachable from here.
func (c *Cluster) Handle(ctx context.Context, at string, req Request) (Result, error) {
	if c.down[at] {
		return Result{}, ErrUnreachable
	}
	if c.cfg.Design == Naive {
		return c.execNaive(ctx, at, req)
	}
	target := ""
	if c.isolate[at] {
		if l, ok := c.cached[at][req.Cell]; ok && l.Region == at {
			target = at
		}
	} else if rt, ok := c.routes[at][req.Cell]; ok && c.regionNow(at).Before(rt.until) {
		target = rt.region
	} else if l, err := c.Leases.Get(ctx, req.Cell); err == nil {
		target = l.Region
		c.routes[at][req.Cell] = route{region: target, until: c.regionNow(at).Add(routeTTL)}
	} else {
		return Result{}, storeErr(err)
	}
	if target == "" || c.down[target] || (target != at && (c.isolate[target] || c.isolate[at])) {
		return Result{}, &home.FrozenError{Cell: req.Cell, Home: target, RetryAfter: c.cfg.LeaseTTL}
	}
	res, err := c.execFenced(ctx, target, req)
	res.Forwarded = target != at
	if errors.Is(err, home.ErrNotOwner) {
		delete(c.routes[at], req.Cell) // the route is stale: ask the store next time
	}
	return res, err
}

// routeTTL is how long a Region's router keeps a cell's home before it
// asks the lease store again: routing is cached, so after a failover a
// request may still reach the old home for this long, and only the fence
// stops it there.
const routeTTL = 3 * time.Second

// route is a router's cached home of a cell.
type route struct {
	region string
	until  time.Time
}

// lease returns the Region's lease of a cell, renewed from the store when
// less than half of it is left. A Region cut off from the store writes
// until its lease is within the margin of its end.
func (c *Cluster) lease(ctx context.Context, r, cell string) (home.Lease, error) {
	now := c.regionNow(r)
	l, ok := c.cached[r][cell]
	if ok && now.Add(c.cfg.LeaseTTL/2).Before(l.Expires) {
		return l, nil
	}
	if c.isolate[r] {
		if ok && l.Writable(now, c.cfg.Margin) {
			return l, nil
		}
		return home.Lease{}, home.ErrLeaseExpired
	}
	cur, err := c.Leases.Get(ctx, cell)
	if err != nil {
		return home.Lease{}, storeErr(err)
	}
	if cur.Region != r {
		delete(c.cached[r], cell)
		return home.Lease{}, &home.NotOwnerError{Cell: cell, Region: r, Epoch: l.Epoch, Owner: home.Ownership{Cell: cell, Region: cur.Region, Epoch: cur.Epoch}}
	}
	if cur, err = c.Leases.Renew(ctx, cur); err != nil {
		delete(c.cached[r], cell)
		return home.Lease{}, storeErr(err)
	}
	c.cached[r][cell] = cur
	return cur, nil
}

// account is a user's balance item at an epoch, or, when it has none
// yet, the base it starts from: the latest earlier epoch's item this
// Region holds.
type account struct {
	exists             bool
	balance, seq       int64
	baseEpoch, baseSeq int64
}

func (c *Cluster) account(ctx context.Context, db *dynamodb.Client, cell, user string, epoch int64) (account, error) {
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(Table), ConsistentRead: aws.Bool(true), Key: key(cell, c.acctSK(user, epoch))})
	if err != nil {
		return account{}, err
	}
	if out.Item != nil {
		return account{exists: true, balance: num(out.Item, "balance"), seq: num(out.Item, "seq"),
			baseEpoch: num(out.Item, "base_epoch"), baseSeq: num(out.Item, "base_seq")}, nil
	}
	if c.cfg.Design == Naive {
		return account{}, nil
	}
	items, err := query(ctx, db, cell, "ACCT#"+user+"#E")
	if err != nil {
		return account{}, err
	}
	var prev map[string]types.AttributeValue
	for _, it := range items {
		if e := epochOf(str(it, schema.SortKey)); e < epoch && (prev == nil || e > epochOf(str(prev, schema.SortKey))) {
			prev = it
		}
	}
	if prev == nil {
		return account{}, nil
	}
	return c.carry(ctx, db, cell, user, prev)
}

// carry is the base a user's first account item of a new epoch starts
// from: the previous epoch's entries this Region holds without a gap, up
// to that epoch's last. After a takeover the Region may hold a
// transaction's items only in part; the base closes over the entries it
// counts, writing again the idempotency record and the paid order of
// each (their content is the entry's own), so that no retry applies them
// twice. An entry beyond the base is late: Reconcile quarantines it.
func (c *Cluster) carry(ctx context.Context, db *dynamodb.Client, cell, user string, prev map[string]types.AttributeValue) (account, error) {
	pe := epochOf(str(prev, schema.SortKey))
	entries, err := query(ctx, db, cell, fmt.Sprintf("LEDGER#%s#E%06d#", user, pe))
	if err != nil {
		return account{}, err
	}
	a := account{balance: num(prev, "opening"), baseEpoch: pe}
	last := num(prev, "seq")
	for _, it := range entries {
		if seqOf(str(it, schema.SortKey)) != a.baseSeq+1 || a.baseSeq == last {
			break
		}
		if err := c.closeEntry(ctx, db, cell, it); err != nil {
			return account{}, err
		}
		a.baseSeq++
		a.balance += num(it, "amount")
	}
	return a, nil
}

// closeEntry writes again, where missing, the idempotency record and the
// paid order that committed with a ledger entry.
func (c *Cluster) closeEntry(ctx context.Context, db *dynamodb.Client, cell string, entry map[string]types.AttributeValue) error {
	it := put(cell, "IDEM#"+str(entry, "key"), map[string]types.AttributeValue{"entry": entry[schema.SortKey], "amount": entry["amount"]}).Put
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: it.TableName, Item: it.Item, ConditionExpression: it.ConditionExpression,
		ExpressionAttributeNames: it.ExpressionAttributeNames})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return err
	}
	if o := str(entry, "order"); o != "" {
		u := update(cell, "ORDER#"+o, expression.AttributeExists(expression.Name(schema.PartitionKey)),
			expression.Set(expression.Name("status"), expression.Value("paid")).Set(expression.Name("paid_key"), expression.Value(str(entry, "key")))).Update
		if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: u.TableName, Key: u.Key, ConditionExpression: u.ConditionExpression,
			UpdateExpression: u.UpdateExpression, ExpressionAttributeNames: u.ExpressionAttributeNames, ExpressionAttributeValues: u.ExpressionAttributeValues}); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) execFenced(ctx context.Context, r string, req Request) (Result, error) {
	for attempt := 0; ; attempt++ {
		l, err := c.lease(ctx, r, req.Cell)
		if err != nil {
			return Result{Region: r}, err
		}
		res, items, err := c.prepare(ctx, r, req, l.Epoch)
		if err != nil || items == nil {
			return res, err
		}
		if !c.cfg.Mutants.NoFence {
			if err := home.Fence(items, Table, l); err != nil {
				return res, err
			}
		}
		_, err = c.DB[r].TransactWriteItems(ctx, items.Input())
		if err == nil {
			return res, nil
		}
		if err = home.FenceError(err, items, l); errors.Is(err, home.ErrNotOwner) {
			delete(c.cached[r], req.Cell)
			return Result{Region: r}, err
		}
		if _, ok := txn.Cancelled(err, items); !ok || attempt == 2 {
			return Result{Region: r}, err
		}
	}
}

func (c *Cluster) execNaive(ctx context.Context, r string, req Request) (Result, error) {
	for attempt := 0; ; attempt++ {
		res, items, err := c.prepare(ctx, r, req, 0)
		if err != nil || items == nil {
			return res, err
		}
		_, err = c.DB[r].TransactWriteItems(ctx, items.Input())
		if err == nil {
			return res, nil
		}
		if _, ok := txn.Cancelled(err, items); !ok || attempt == 2 {
			return Result{Region: r}, err
		}
	}
}

// prepare reads what a flow needs in Region r and builds its transaction:
// nil items with a Result when it replays or declines.
func (c *Cluster) prepare(ctx context.Context, r string, req Request, epoch int64) (Result, *txn.Items, error) {
	db := c.DB[r]
	res := Result{Region: r}
	idem, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(Table), ConsistentRead: aws.Bool(true), Key: key(req.Cell, "IDEM#"+req.Key)})
	if err != nil {
		return res, nil, err
	}
	if idem.Item != nil {
		res.Outcome, res.Entry = Replayed, str(idem.Item, "entry")
		return res, nil, nil
	}
	if req.Amount <= 0 {
		return res, nil, fmt.Errorf("regionsim: amount %d: must be positive minor units", req.Amount)
	}
	a, err := c.account(ctx, db, req.Cell, req.User, epoch)
	if err != nil {
		return res, nil, err
	}
	delta := req.Amount
	if req.Op != Charge {
		delta = -req.Amount
	}
	if a.balance+delta < 0 {
		res.Outcome = Declined
		return res, nil, nil
	}
	items := &txn.Items{}
	if req.Op == Settle {
		o, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(Table), ConsistentRead: aws.Bool(true), Key: key(req.Cell, "ORDER#"+req.Order)})
		if err != nil {
			return res, nil, err
		}
		if o.Item == nil || str(o.Item, "status") != "open" || num(o.Item, "amount") != req.Amount {
			res.Outcome = Declined
			return res, nil, nil
		}
		items.Add("order", update(req.Cell, "ORDER#"+req.Order,
			expression.Name("status").Equal(expression.Value("open")),
			expression.Set(expression.Name("status"), expression.Value("paid")).Set(expression.Name("paid_key"), expression.Value(req.Key))))
	}
	entry := fmt.Sprintf("LEDGER#%s#E%06d#%08d", req.User, epoch, a.seq+1)
	if c.cfg.Design == Naive {
		c.ids++
		entry = fmt.Sprintf("LEDGER#%s#%s-%06d", req.User, r, c.ids)
	}
	items.Add("idempotency", put(req.Cell, "IDEM#"+req.Key, map[string]types.AttributeValue{"entry": s(entry), "amount": n(delta)}))
	items.Add("ledger", put(req.Cell, entry, map[string]types.AttributeValue{
		"amount": n(delta), "key": s(req.Key), "op": s(string(req.Op)), "user": s(req.User), "epoch": n(epoch),
		"id": s(entryID(req)), "order": s(req.Order)}))
	switch {
	case c.cfg.Design == Naive:
		cond := expression.Name("balance").GreaterThanEqual(expression.Value(-delta))
		if delta > 0 {
			cond = expression.AttributeExists(expression.Name(schema.PartitionKey))
		}
		items.Add("account", update(req.Cell, c.acctSK(req.User, 0), cond,
			expression.Add(expression.Name("balance"), expression.Value(delta)).Add(expression.Name("seq"), expression.Value(1))))
	case a.exists:
		items.Add("account", update(req.Cell, c.acctSK(req.User, epoch), expression.Name("seq").Equal(expression.Value(a.seq)),
			expression.Set(expression.Name("balance"), expression.Value(a.balance+delta)).Set(expression.Name("seq"), expression.Value(a.seq+1))))
	default:
		items.Add("account", put(req.Cell, c.acctSK(req.User, epoch), map[string]types.AttributeValue{
			"balance": n(a.balance + delta), "opening": n(a.balance), "seq": n(1), "base_epoch": n(a.baseEpoch), "base_seq": n(a.baseSeq)}))
	}
	res.Outcome, res.Entry = Applied, entry
	return res, items, items.Err()
}

// entryID derives a ledger entry's id from the caller, the operation and
// the key, so that two applies of one request name the same movement.
func entryID(req Request) string {
	return req.User + "/" + string(req.Op) + "/" + req.Key
}

func key(cell, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{schema.PartitionKey: s(home.PK(cell)), schema.SortKey: s(sk)}
}

func put(cell, sk string, attrs map[string]types.AttributeValue) types.TransactWriteItem {
	item := key(cell, sk)
	for k, v := range attrs {
		item[k] = v
	}
	cond, _ := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(schema.PartitionKey))).Build()
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(Table), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names()}}
}

func update(cell, sk string, cond expression.ConditionBuilder, upd expression.UpdateBuilder) types.TransactWriteItem {
	ex, err := expression.NewBuilder().WithCondition(cond).WithUpdate(upd).Build()
	if err != nil {
		panic(err) // the builders above are constant shapes
	}
	return types.TransactWriteItem{Update: &types.Update{TableName: aws.String(Table), Key: key(cell, sk),
		ConditionExpression: ex.Condition(), UpdateExpression: ex.Update(),
		ExpressionAttributeNames: ex.Names(), ExpressionAttributeValues: ex.Values()}}
}

func query(ctx context.Context, db *dynamodb.Client, cell, prefix string) ([]map[string]types.AttributeValue, error) {
	kc, err := expression.NewBuilder().WithKeyCondition(expression.Key(schema.PartitionKey).Equal(expression.Value(home.PK(cell))).
		And(expression.Key(schema.SortKey).BeginsWith(prefix))).Build()
	if err != nil {
		return nil, err
	}
	in := &dynamodb.QueryInput{TableName: aws.String(Table), ConsistentRead: aws.Bool(true), KeyConditionExpression: kc.KeyCondition(),
		ExpressionAttributeNames: kc.Names(), ExpressionAttributeValues: kc.Values()}
	var items []map[string]types.AttributeValue
	for {
		out, err := db.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		items = append(items, out.Items...)
		if out.LastEvaluatedKey == nil {
			return items, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// epochOf reads the epoch of an ACCT#u#E<epoch> or LEDGER#u#E<epoch>#…
// sort key.
func epochOf(sk string) int64 {
	i := strings.LastIndex(sk, "#E")
	if i < 0 {
		return 0
	}
	rest := sk[i+2:]
	if j := strings.IndexByte(rest, '#'); j >= 0 {
		rest = rest[:j]
	}
	var e int64
	fmt.Sscanf(rest, "%d", &e)
	return e
}
