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
	"github.com/oncetable/oncetable/runtime/store"
	"github.com/oncetable/oncetable/runtime/txn"
)

// Hold expiries.
const (
	DefaultHoldExpiry = 7 * 24 * time.Hour
	MinHoldExpiry     = time.Minute
	MaxHoldExpiry     = 30 * 24 * time.Hour
)

// itemHold names the hold item in a hold's transactions.
const itemHold = "hold"

// Authorize reserves amt of a user's balance until it is captured, voided
// or expires (after expiry, zero: DefaultHoldExpiry), in one
// TransactWriteItems: the profile's guarded take that also adds the hold
// to its holds map (at most store.MaxOpenHolds), the hold item, and the
// idempotency record. The reserved money leaves the available balance at
// once and comes back when the hold is voided or expires. Status 201 with
// the hold.
func (s *Service) Authorize(ctx context.Context, idem Idem, userID string, amt money.Amount, expiry time.Duration, opts ...func(*FlowOptions)) (Response, error) {
	o, err := flowOptions(opts)
	if err != nil {
		return Response{}, err
	}
	if expiry == 0 {
		expiry = DefaultHoldExpiry
	}
	if expiry < MinHoldExpiry || expiry > MaxHoldExpiry {
		return Response{}, fmt.Errorf("%w: hold expiry %s, want %s..%s", ErrInvalidHold, expiry, MinHoldExpiry, MaxHoldExpiry)
	}
	uk, err := s.keys.User(userID)
	if err != nil {
		return Response{}, err
	}
	holdID := s.entryID("hold", idem)
	hk, err := s.keys.Hold(userID, holdID)
	if err != nil {
		return Response{}, err
	}
	firstHold := false
	for attempt := 1; ; attempt++ {
		resp, err := s.runTaking(ctx, func(rel release) (flow, error) {
			return s.authorizeFlow(idem, newHold{userID: userID, user: uk, hold: hk, id: holdID, md: o.Metadata}, amt, expiry, rel, firstHold), nil
		})
		if err == errNoHoldsMap && attempt == 1 {
			firstHold = true
			continue
		}
		return resp, err
	}
}

// newHold names the hold an authorization creates: its user, keys, id
// and metadata.
type newHold struct {
	userID     string
	user, hold keys.Key
	id         string
	md         metadata.Metadata
}

func (s *Service) authorizeFlow(idem Idem, nh newHold, amt money.Amount, expiry time.Duration, rel release, firstHold bool) flow {
	userID, uk, hk, holdID := nh.userID, nh.user, nh.hold, nh.id
	build := func(now time.Time) (*idempotency.Effect, error) {
		ts, exp := keys.Timestamp(now), keys.Timestamp(now.Add(expiry))
		slot := store.OpenHold{Amount: amt.Minor, Currency: string(amt.Currency), ExpiresAt: exp}
		// A profile that never had a hold has no holds map, and DynamoDB
		// cannot SET a path inside a map that is not there.
		addHold := func(u expression.UpdateBuilder) expression.UpdateBuilder {
			if firstHold {
				return u.Set(holdsName, expression.Value(map[string]store.OpenHold{holdID: slot}))
			}
			return u.Set(holdPath(holdID), expression.Value(slot))
		}
		room := expression.AttributeNotExists(holdsName)
		if !firstHold {
			room = expression.AttributeNotExists(holdPath(holdID)).
				And(expression.Size(holdsName).LessThan(expression.Value(store.MaxOpenHolds + len(rel.ids))))
		}
		take, err := s.take(uk, amt, now, rel, addHold, room, true)
		if err != nil {
			return nil, err
		}
		h := store.Hold{PK: hk.PK, SK: hk.SK, EntityType: store.TypeHold, HoldID: holdID, UserID: userID,
			Status: store.HoldAuthorized, Amount: amt.Minor, Currency: string(amt.Currency), CreatedAt: ts, ExpiresAt: exp, UpdatedAt: ts, Metadata: nh.md}
		put, err := s.items.PutNew(h)
		if err != nil {
			return nil, err
		}
		eff := &idempotency.Effect{Status: http.StatusCreated, Body: h}
		eff.Items.Add(itemBalance, take)
		eff.Items.Add(itemHold, put)
		return eff, nil
	}
	fail := func(c *txn.CancelledError) error {
		if !c.Failed(itemBalance) {
			return nil
		}
		old := c.Item(itemBalance)
		var u store.User
		if len(old) > 0 && attributevalue.UnmarshalMap(old, &u) == nil && u.Currency == string(amt.Currency) {
			switch {
			case !firstHold && old["holds"] == nil && u.Balance >= amt.Minor:
				return errNoHoldsMap
			case len(u.Holds) >= store.MaxOpenHolds+len(rel.ids):
				return fmt.Errorf("user %q has %d open holds, at most %d: %w", userID, len(u.Holds), store.MaxOpenHolds, ErrTooManyHolds)
			}
		}
		return s.takeFailure(userID, old, amt, rel)
	}
	return flow{name: FlowAuthorize, idem: idem, users: []string{userID}, invocation: []string{holdID}, build: ordersUntouched(build), fail: fail}
}

// holdState is what a capture or a void reads before it writes: the hold
// item and the profile's entry of the hold (absent once released).
type holdState struct {
	hold store.Hold
	open *store.OpenHold
}

// readHold reads the profile, the hold and the idempotency record in one
// strongly consistent BatchGetItem. It returns the stored response when
// the record is live.
func (s *Service) readHold(ctx context.Context, req idempotency.Request, uk, hk keys.Key, holdID string) (*holdState, *Response, error) {
	got, replay, err := s.readWithRecord(ctx, req, uk, hk)
	if err != nil || replay != nil {
		return nil, replay, err
	}
	item, found := got[hk.SK]
	if !found {
		return nil, nil, fmt.Errorf("hold %q: %w", holdID, ErrNotFound)
	}
	var st holdState
	if err := s.items.Unmarshal(item, &st.hold); err != nil {
		return nil, nil, err
	}
	var u store.User
	if item, found := got[uk.SK]; found {
		if err := s.items.Unmarshal(item, &u); err != nil {
			return nil, nil, err
		}
	}
	if h, ok := u.Holds[holdID]; ok {
		st.open = &h
	}
	return &st, nil, nil
}

// holdTarget validates a capture's or a void's ids and builds its request.
func (s *Service) holdTarget(idem Idem, userID, holdID string) (uk, hk keys.Key, req idempotency.Request, err error) {
	if uk, err = s.keys.User(userID); err != nil {
		return
	}
	if hk, err = s.keys.Hold(userID, holdID); err != nil {
		return
	}
	if !holdIDPathSafe(holdID) {
		err = fmt.Errorf("hold %q: %w", holdID, ErrNotFound)
		return
	}
	return uk, hk, s.idemRequest(idem, ""), nil
}

// notOpen answers a capture or a void of a hold that is no longer open. Its
// own first attempt may have closed it after the record was read as
// absent, so one strongly consistent read of the record tells a replay
// from a real 409, as settle does.
func (s *Service) notOpen(ctx context.Context, req idempotency.Request, h store.Hold, now string) (Response, error) {
	resp, live, err := s.records.Lookup(ctx, req)
	if err != nil || live {
		return resp, err
	}
	h = h.At(now)
	if h.Status == store.HoldExpired {
		return Response{}, fmt.Errorf("hold %q expired at %s: %w", h.HoldID, h.ExpiresAt, ErrHoldExpired)
	}
	return Response{}, fmt.Errorf("hold %q is %s: %w", h.HoldID, h.Status, ErrHoldNotOpen)
}

// Capture posts amt of an open hold (at most what it holds) and gives the
// rest back to the balance, in one TransactWriteItems: the profile (REMOVE
// the hold, balance + the rest, if the hold is still there with the amount
// read and has not expired), the hold item authorized -> captured, a
// capture ledger entry, and the idempotency record. A hold is captured
// once: of two concurrent captures one commits and the other finds the
// hold gone (ErrHoldNotOpen). The held amount is read first, with the
// record (one BatchGetItem), since an update cannot subtract two
// attributes' values in one SET. Status 200 with the hold.
func (s *Service) Capture(ctx context.Context, idem Idem, userID, holdID string, amt money.Amount, opts ...func(*FlowOptions)) (Response, error) {
	o, err := flowOptions(opts)
	if err != nil {
		return Response{}, err
	}
	uk, hk, req, err := s.holdTarget(idem, userID, holdID)
	if err != nil {
		return Response{}, err
	}
	st, replay, err := s.readHold(ctx, req, uk, hk, holdID)
	if err != nil || replay != nil {
		return deref(replay), err
	}
	now := keys.Timestamp(s.b.Now())
	if st.hold.Status != store.HoldAuthorized || st.open == nil || st.open.Expired(now) {
		return s.notOpen(ctx, req, st.hold, now)
	}
	held := money.Amount{Minor: st.open.Amount, Currency: money.Currency(st.open.Currency)}
	if amt.Currency != held.Currency {
		return Response{}, fmt.Errorf("hold %q is in %s, the capture in %s: %w", holdID, held.Currency, amt.Currency, ErrCurrencyMismatch)
	}
	if amt.Minor > held.Minor {
		return Response{}, &ExceedsHoldError{Held: held, Requested: amt}
	}
	if _, err := metadata.Merge(st.hold.Metadata, o.Metadata); err != nil {
		return Response{}, err
	}
	f := s.closeHoldFlow(idem, st.hold, uk, hk, held, &amt, o.Metadata)
	return s.run(ctx, f)
}

// Void gives an open hold's money back to the balance, in one
// TransactWriteItems: the profile (REMOVE the hold, balance + its amount,
// if it is still there with that amount), the hold item authorized ->
// voided, and the idempotency record. An expired hold can be voided too;
// if a flow has released it already, only the hold item changes. Status
// 200 with the hold.
func (s *Service) Void(ctx context.Context, idem Idem, userID, holdID string, opts ...func(*FlowOptions)) (Response, error) {
	o, err := flowOptions(opts)
	if err != nil {
		return Response{}, err
	}
	uk, hk, req, err := s.holdTarget(idem, userID, holdID)
	if err != nil {
		return Response{}, err
	}
	st, replay, err := s.readHold(ctx, req, uk, hk, holdID)
	if err != nil || replay != nil {
		return deref(replay), err
	}
	if st.hold.Status != store.HoldAuthorized {
		return s.notOpen(ctx, req, st.hold, keys.Timestamp(s.b.Now()))
	}
	held := money.Amount{Currency: money.Currency(st.hold.Currency)}
	if st.open != nil {
		held.Minor = st.open.Amount
	}
	if _, err := metadata.Merge(st.hold.Metadata, o.Metadata); err != nil {
		return Response{}, err
	}
	return s.run(ctx, s.closeHoldFlow(idem, st.hold, uk, hk, held, nil, o.Metadata))
}

// closeHoldFlow captures captured of a hold holding held, or voids it when
// captured is nil. held.Minor is zero when a flow released the hold already.
// md is the request's metadata: its keys are set on the hold's, and a
// capture's ledger entry carries it.
func (s *Service) closeHoldFlow(idem Idem, h store.Hold, uk, hk keys.Key, held money.Amount, captured *money.Amount, md metadata.Metadata) flow {
	name, status, entryID := FlowVoid, store.HoldVoided, ""
	var posted int64
	if captured != nil {
		name, status, entryID, posted = FlowCapture, store.HoldCaptured, s.entryID("cap", idem), captured.Minor
	}
	build := func(now time.Time) (*idempotency.Effect, error) {
		ts := keys.Timestamp(now)
		var profile types.TransactWriteItem
		var err error
		if held.Minor == 0 {
			profile, err = s.items.ConditionCheck(uk, s.items.Exists().And(expression.AttributeNotExists(holdPath(h.HoldID))))
		} else {
			cond := s.items.Exists().And(holdPath(h.HoldID, "amount").Equal(expression.Value(held.Minor)))
			if captured != nil {
				cond = cond.And(holdPath(h.HoldID, "until").GreaterThan(expression.Value(ts)))
			}
			profile, err = s.items.Update(uk,
				expression.Set(balanceName, balanceName.Plus(expression.Value(held.Minor-posted))).
					Set(updatedName, expression.Value(ts)).Remove(holdPath(h.HoldID)), cond)
		}
		if err != nil {
			return nil, err
		}
		closed := h
		closed.Status, closed.Captured, closed.EntryID, closed.UpdatedAt = status, posted, entryID, ts
		if closed.Metadata, err = metadata.Merge(h.Metadata, md); err != nil {
			return nil, err
		}
		upd := expression.Set(statusName, expression.Value(status)).Set(updatedName, expression.Value(ts))
		if len(md) > 0 {
			upd = upd.Set(metadataName, expression.Value(closed.Metadata))
		}
		if captured != nil {
			upd = upd.Set(expression.Name("captured"), expression.Value(posted)).Set(expression.Name("entryId"), expression.Value(entryID))
		}
		hold, err := s.items.Update(hk, upd, s.items.Exists().And(statusName.Equal(expression.Value(store.HoldAuthorized))))
		if err != nil {
			return nil, err
		}
		eff := &idempotency.Effect{Status: http.StatusOK, Body: closed}
		eff.Items.Add(itemBalance, profile)
		eff.Items.Add(itemHold, hold)
		if captured != nil && posted > 0 {
			k, err := s.keys.Ledger(h.UserID, entryID)
			if err != nil {
				return nil, err
			}
			entry, err := s.items.PutNew(store.LedgerEntry{PK: k.PK, SK: k.SK, EntityType: store.TypeLedgerEntry, EntryID: entryID,
				UserID: h.UserID, Kind: store.LedgerCapture, Amount: posted, Currency: h.Currency, HoldID: h.HoldID, Metadata: md, CreatedAt: ts}.WithLegs())
			if err != nil {
				return nil, err
			}
			eff.Items.Add(itemLedger, entry)
		}
		return eff, nil
	}
	fail := func(c *txn.CancelledError) error {
		if !c.Failed(itemBalance) && !c.Failed(itemHold) {
			return nil
		}
		var u store.User
		if old := c.Item(itemBalance); len(old) > 0 && attributevalue.UnmarshalMap(old, &u) == nil {
			if o, ok := u.Holds[h.HoldID]; ok && captured != nil && o.Expired(keys.Timestamp(s.b.Now())) {
				return fmt.Errorf("hold %q expired at %s: %w", h.HoldID, o.ExpiresAt, ErrHoldExpired)
			}
		}
		return fmt.Errorf("hold %q was closed by another request: %w", h.HoldID, ErrHoldNotOpen)
	}
	invocation := []string{h.HoldID}
	if entryID != "" {
		invocation = append(invocation, entryID)
	}
	return flow{name: name, idem: idem, users: []string{h.UserID}, invocation: invocation, build: ordersUntouched(build), fail: fail}
}
