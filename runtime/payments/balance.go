package payments

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/metadata"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// CreditResult is the body of a credit.
type CreditResult struct {
	EntryID  string            `json:"entryId"`
	Amount   int64             `json:"amount"`
	Currency string            `json:"currency"`
	Metadata metadata.Metadata `json:"metadata,omitempty"`
}

// DebitResult is the body of a debit. Its entryId names the ledger entry,
// as a credit's does.
type DebitResult struct {
	EntryID  string            `json:"entryId"`
	Amount   int64             `json:"amount"`
	Currency string            `json:"currency"`
	Metadata metadata.Metadata `json:"metadata,omitempty"`
}

// Names of the transaction items of the flows.
const (
	itemBalance = "balance"
	itemLedger  = "ledger"
	itemOrder   = "order"
	itemSummary = "summary"
	itemCounter = "orderCount"
	itemPayment = "payment"
	itemLine    = "line-%03d"
	itemPrice   = "price-%03d" // the catalogue check of the product first named by that line
)

var (
	balanceName  = expression.Name("balance")
	currencyName = expression.Name("currency")
	updatedName  = expression.Name(schema.UpdatedAt)
)

// Credit tops up a user's balance in one TransactWriteItems: the profile
// Update (SET balance = balance + :amt, fixing the currency on the first
// credit), a ledger entry and the idempotency record. Status 201.
func (s *Service) Credit(ctx context.Context, idem Idem, userID string, amt money.Amount, opts ...func(*FlowOptions)) (Response, error) {
	return s.moveBalance(ctx, creditMove, idem, userID, amt, opts)
}

// balanceMove is all that tells a credit from a debit: both are one
// TransactWriteItems of a profile Update, a ledger entry and the
// idempotency record, status 201, and a cancellation of the Update is
// explained from the profile's ALL_OLD image.
type balanceMove struct {
	name    string // the flow
	prefix  string // of the entry's id
	kind    string // of the ledger entry
	update  func(s *Service, uk keys.Key, amt money.Amount, now time.Time, rel release) (types.TransactWriteItem, error)
	failure func(s *Service, userID string, old map[string]types.AttributeValue, amt money.Amount, rel release) error
	body    func(entryID string, amt money.Amount, md metadata.Metadata) any
}

var (
	creditMove = balanceMove{name: FlowCredit, prefix: "cr", kind: store.LedgerCredit,
		update: func(s *Service, uk keys.Key, amt money.Amount, now time.Time, _ release) (types.TransactWriteItem, error) {
			return s.credit(uk, amt, now)
		},
		failure: func(_ *Service, userID string, old map[string]types.AttributeValue, amt money.Amount, _ release) error {
			return creditFailure(userID, old, amt)
		},
		body: func(id string, amt money.Amount, md metadata.Metadata) any {
			return CreditResult{EntryID: id, Amount: amt.Minor, Currency: string(amt.Currency), Metadata: md}
		}}
	debitMove = balanceMove{name: FlowDebit, prefix: "db", kind: store.LedgerDebit,
		update: (*Service).guardedDebit, failure: (*Service).takeFailure,
		body: func(id string, amt money.Amount, md metadata.Metadata) any {
			return DebitResult{EntryID: id, Amount: amt.Minor, Currency: string(amt.Currency), Metadata: md}
		}}
)

func (s *Service) moveBalance(ctx context.Context, m balanceMove, idem Idem, userID string, amt money.Amount, opts []func(*FlowOptions)) (Response, error) {
	o, err := flowOptions(opts)
	if err != nil {
		return Response{}, err
	}
	return s.runTaking(ctx, func(rel release) (flow, error) { return s.balanceFlow(m, idem, userID, amt, o.Metadata, rel) })
}

func (s *Service) balanceFlow(m balanceMove, idem Idem, userID string, amt money.Amount, md metadata.Metadata, rel release) (flow, error) {
	uk, err := s.keys.User(userID)
	if err != nil {
		return flow{}, err
	}
	entryID := s.entryID(m.prefix, idem)
	build := func(now time.Time) (*idempotency.Effect, error) {
		upd, err := m.update(s, uk, amt, now, rel)
		if err != nil {
			return nil, err
		}
		entry, err := s.ledgerPut(userID, now, entryID, m.kind, amt, "", md)
		if err != nil {
			return nil, err
		}
		eff := &idempotency.Effect{Status: http.StatusCreated, Body: m.body(entryID, amt, md)}
		eff.Items.Add(itemBalance, upd)
		eff.Items.Add(itemLedger, entry)
		return eff, nil
	}
	fail := func(c *txn.CancelledError) error {
		if !c.Failed(itemBalance) {
			return nil
		}
		return m.failure(s, userID, c.Item(itemBalance), amt, rel)
	}
	return flow{name: m.name, idem: idem, users: []string{userID}, partition: uk.PK, invocation: []string{entryID}, build: ordersUntouched(build), fail: fail}, nil
}

// credit is the profile Update of a credit.
func (s *Service) credit(uk keys.Key, amt money.Amount, now time.Time) (types.TransactWriteItem, error) {
	return s.items.Update(uk,
		expression.Set(balanceName, expression.Plus(expression.IfNotExists(balanceName, expression.Value(0)), expression.Value(amt.Minor))).
			Set(currencyName, expression.Value(string(amt.Currency))).
			Set(updatedName, expression.Value(keys.Timestamp(now))),
		s.items.Exists().
			And(expression.Or(expression.AttributeNotExists(currencyName), currencyName.Equal(expression.Value(string(amt.Currency))))).
			And(expression.Or(expression.AttributeNotExists(balanceName), balanceName.LessThanEqual(expression.Value(money.MaxMinor-amt.Minor)))))
}

// creditFailure explains a failed credit from the profile's ALL_OLD image.
func creditFailure(userID string, old map[string]types.AttributeValue, amt money.Amount) error {
	var u store.User
	if len(old) == 0 || attributevalue.UnmarshalMap(old, &u) != nil {
		return fmt.Errorf("user %q: %w", userID, ErrNotFound)
	}
	if u.Currency != "" && u.Currency != string(amt.Currency) {
		return fmt.Errorf("balance of user %q is in %s, credit is in %s: %w", userID, u.Currency, amt.Currency, ErrCurrencyMismatch)
	}
	return fmt.Errorf("balance %s + %s: %w", money.Format(u.Balance, amt.Currency), amt, ErrBalanceLimit)
}

// Debit takes amt from a user's balance only if the balance covers it: one
// TransactWriteItems with the guarded Update (SET balance = balance - :amt,
// condition balance >= :amt), a ledger entry and the idempotency record.
// Concurrent debits therefore never drive the balance negative. Status 201.
func (s *Service) Debit(ctx context.Context, idem Idem, userID string, amt money.Amount, opts ...func(*FlowOptions)) (Response, error) {
	return s.moveBalance(ctx, debitMove, idem, userID, amt, opts)
}

// guardedDebit is the profile Update shared by debit and settle: the
// guarded take of amt, releasing rel's expired holds.
func (s *Service) guardedDebit(uk keys.Key, amt money.Amount, now time.Time, rel release) (types.TransactWriteItem, error) {
	return s.take(uk, amt, now, rel, nil, expression.ConditionBuilder{}, false)
}

// entryID is the id of a ledger entry, payment, refund or hold (or of a
// transfer, whose entries suffix it) that idem's request makes, on the
// service's clock: the entry's sort key takes its time from it
// (keys.Layout.Ledger), so the entry is read by id. The rest is derived
// from (caller, operation, key) (keys.DerivedIDAt): two applies of one
// request, in two Regions, make ids of one origin (keys.IDOrigin), which
// the verifier reports as a duplicate effect. Without a key it is random.
func (s *Service) entryID(prefix string, idem Idem) string {
	if idem.Key == "" {
		return keys.NewIDAt(prefix, s.b.Now())
	}
	return keys.DerivedIDAt(prefix, s.b.Now(), idem.Scope.Hash(idem.Key))
}

func (s *Service) ledgerPut(userID string, now time.Time, entryID, kind string, amt money.Amount, orderID string, md metadata.Metadata) (types.TransactWriteItem, error) {
	k, err := s.keys.Ledger(userID, entryID)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return s.items.PutNew(store.LedgerEntry{
		PK: k.PK, SK: k.SK, EntityType: store.TypeLedgerEntry, EntryID: entryID, UserID: userID, Kind: kind,
		Amount: amt.Minor, Currency: string(amt.Currency), OrderID: orderID, Metadata: md, CreatedAt: keys.Timestamp(now),
	}.WithLegs())
}
