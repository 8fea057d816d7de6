package payments

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/metadata"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// TransferResult is the body of a transfer.
type TransferResult struct {
	TransferID string `json:"transferId"`
	// EntryID is the sender's entry (transfer_out); the recipient's is
	// TransferID + "-in".
	EntryID    string `json:"entryId"`
	FromUserID string `json:"fromUserId"`
	ToUserID   string `json:"toUserId"`
	Amount     int64  `json:"amount"`
	Currency   string `json:"currency"`
	// Metadata is on the sender's entry only: it is the sender's
	// client's, not shown in the recipient's ledger.
	Metadata metadata.Metadata `json:"metadata,omitempty"`
}

// Names of a transfer's own items (the sender's are itemBalance and
// itemLedger).
const (
	itemRecipient = "recipient"
	itemLedgerIn  = "ledger-in"
)

// Transfer moves amt from one user's balance to another's, all or nothing,
// in one TransactWriteItems: the sender's guarded take (as a debit), the
// recipient's credit (as a credit), a transfer_out entry in the sender's
// ledger, a transfer_in entry in the recipient's, and the idempotency
// record. Both entries carry the transfer's id: together they are the two
// legs on the platform's transfers clearing account, which nets to zero
// (docs/ledger.md). Status 201.
func (s *Service) Transfer(ctx context.Context, idem Idem, fromUserID, toUserID string, amt money.Amount, opts ...func(*FlowOptions)) (Response, error) {
	o, err := flowOptions(opts)
	if err != nil {
		return Response{}, err
	}
	if fromUserID == toUserID {
		return Response{}, fmt.Errorf("%w: a transfer from user %q to itself", ErrSameAccount, fromUserID)
	}
	if _, err := s.keys.User(toUserID); err != nil {
		return Response{}, err
	}
	transferID := s.entryID("tr", idem)
	return s.runTaking(ctx, func(rel release) (flow, error) {
		return s.transferFlow(idem, transferParties{from: fromUserID, to: toUserID, id: transferID, md: o.Metadata}, amt, rel)
	})
}

// transferParties names one transfer: its users, its id and the sender's
// metadata.
type transferParties struct {
	from, to, id string
	md           metadata.Metadata
}

func (s *Service) transferFlow(idem Idem, p transferParties, amt money.Amount, rel release) (flow, error) {
	from, to, transferID := p.from, p.to, p.id
	fk, err := s.keys.User(from)
	if err != nil {
		return flow{}, err
	}
	tk, err := s.keys.User(to)
	if err != nil {
		return flow{}, err
	}
	outID, inID := transferID+"-out", transferID+"-in"
	build := func(now time.Time) (*idempotency.Effect, error) {
		take, err := s.guardedDebit(fk, amt, now, rel)
		if err != nil {
			return nil, err
		}
		give, err := s.credit(tk, amt, now)
		if err != nil {
			return nil, err
		}
		out, err := s.transferEntry(from, to, now, outID, transferID, store.LedgerTransferOut, amt, p.md)
		if err != nil {
			return nil, err
		}
		in, err := s.transferEntry(to, from, now, inID, transferID, store.LedgerTransferIn, amt, nil)
		if err != nil {
			return nil, err
		}
		eff := &idempotency.Effect{Status: http.StatusCreated, Body: TransferResult{TransferID: transferID, EntryID: outID,
			FromUserID: from, ToUserID: to, Amount: amt.Minor, Currency: string(amt.Currency), Metadata: p.md}}
		eff.Items.Add(itemBalance, take)
		eff.Items.Add(itemRecipient, give)
		eff.Items.Add(itemLedger, out)
		eff.Items.Add(itemLedgerIn, in)
		return eff, nil
	}
	fail := func(c *txn.CancelledError) error {
		switch {
		case c.Failed(itemBalance):
			return s.takeFailure(from, c.Item(itemBalance), amt, rel)
		case c.Failed(itemRecipient):
			if len(c.Item(itemRecipient)) == 0 {
				return &RecipientError{UserID: to, Err: ErrNotFound}
			}
			return &RecipientError{UserID: to, Err: creditFailure(to, c.Item(itemRecipient), amt)}
		}
		return nil
	}
	return flow{name: FlowTransfer, idem: idem, users: []string{from, to}, invocation: []string{transferID}, build: ordersUntouched(build), fail: fail}, nil
}

// transferEntry is one leg of a transfer in user's ledger.
func (s *Service) transferEntry(user, counterparty string, now time.Time, entryID, transferID, kind string, amt money.Amount, md metadata.Metadata) (types.TransactWriteItem, error) {
	k, err := s.keys.Ledger(user, entryID)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return s.items.PutNew(store.LedgerEntry{
		PK: k.PK, SK: k.SK, EntityType: store.TypeLedgerEntry, EntryID: entryID, UserID: user, Kind: kind,
		Amount: amt.Minor, Currency: string(amt.Currency), TransferID: transferID, Counterparty: counterparty,
		Metadata: md, CreatedAt: keys.Timestamp(now),
	}.WithLegs())
}
