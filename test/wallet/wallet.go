package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/idempotency"
	"github.com/oncetable/oncetable/runtime/idempotency/idemhttp"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/money"
	"github.com/oncetable/oncetable/runtime/txn"
)

// The table's own names.
const (
	PartitionKey   = "pk"
	SortKey        = "sk"
	TTLAttribute   = "expires"
	WalletPrefix   = "wallet#"
	WalletSK       = "wallet"
	TransferPrefix = "transfer#"
	RecordPrefix   = "once#"
)

// Names of a transfer's transaction items.
const (
	itemDebit    = "debit"
	itemCredit   = "credit"
	itemTransfer = "transfer"
)

// Sentinel errors of a transfer.
var (
	ErrInsufficientFunds = errors.New("wallet: insufficient funds")
	ErrNoWallet          = errors.New("wallet: no such wallet")
	ErrInvalid           = errors.New("wallet: invalid transfer")
)

// DB is the client the wallets need; *dynamodb.Client is one.
type DB interface {
	idempotency.DB
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
}

// Options configures a [Service].
type Options struct {
	// Clock returns the current time. Default: time.Now.
	Clock func() time.Time
	// Expiry is how long a transfer's key is remembered. Default: 24h.
	Expiry time.Duration
	// Caller is the authenticated caller of a request. Default: the
	// X-Caller header (a stand-in for an authorizer), 401 without it.
	Caller idemhttp.CallerFunc
}

// Service holds the wallets of one table.
type Service struct {
	db      DB
	table   string
	records *idempotency.Table
	caller  idemhttp.CallerFunc
}

// New returns the wallets of table.
func New(db DB, table string, opts ...func(*Options)) *Service {
	o := Options{Caller: headerCaller}
	for _, f := range opts {
		f(&o)
	}
	records := idempotency.NewTable(db, table, func(io *idempotency.Options) {
		io.Attributes = idempotency.Attributes{PartitionKey: PartitionKey, SortKey: SortKey, TTL: TTLAttribute}
		io.KeyPrefix, io.Clock, io.Expiry = RecordPrefix, o.Clock, o.Expiry
	})
	return &Service{db: db, table: table, records: records, caller: o.Caller}
}

func headerCaller(r *http.Request) (string, error) {
	if c := r.Header.Get("X-Caller"); c != "" {
		return c, nil
	}
	return "", errors.New("X-Caller header is required")
}

// CreateTable creates the wallets table (pk, sk) with TTL on expires.
func (s *Service) CreateTable(ctx context.Context) error {
	_, err := s.db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(s.table), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(PartitionKey), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(SortKey), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String(PartitionKey), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(SortKey), KeyType: types.KeyTypeRange}}})
	if err != nil {
		return err
	}
	_, err = s.db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(s.table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(TTLAttribute), Enabled: aws.Bool(true)}})
	return err
}

func walletKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		PartitionKey: &types.AttributeValueMemberS{Value: WalletPrefix + id},
		SortKey:      &types.AttributeValueMemberS{Value: WalletSK},
	}
}

// Open creates wallet id holding amt.
func (s *Service) Open(ctx context.Context, id string, amt money.Amount) error {
	if err := keys.ValidateID("walletId", id); err != nil {
		return err
	}
	item := walletKey(id)
	item["balance"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(amt.Minor, 10)}
	item["currency"] = &types.AttributeValueMemberS{Value: string(amt.Currency)}
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: item,
		ConditionExpression: aws.String("attribute_not_exists(" + PartitionKey + ")")})
	return err
}

// Balance reads a wallet's balance with a strongly consistent GetItem.
func (s *Service) Balance(ctx context.Context, id string) (money.Amount, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: walletKey(id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return money.Amount{}, err
	}
	if len(out.Item) == 0 {
		return money.Amount{}, fmt.Errorf("%w: %q", ErrNoWallet, id)
	}
	b, _ := out.Item["balance"].(*types.AttributeValueMemberN)
	c, _ := out.Item["currency"].(*types.AttributeValueMemberS)
	if b == nil || c == nil {
		return money.Amount{}, fmt.Errorf("wallet %q: malformed item", id)
	}
	minor, err := strconv.ParseInt(b.Value, 10, 64)
	return money.Amount{Minor: minor, Currency: money.Currency(c.Value)}, err
}

// Handler serves POST /transfers.
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /transfers", idemhttp.Transactional(s.records, s.caller, s.plan, func(o *idemhttp.Options) {
		o.Operation = "transfer"
		o.Error = problem
	}))
	return mux
}

// Transfer is the body of POST /transfers.
type Transfer struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// Receipt is the answer to a transfer.
type Receipt struct {
	TransferID string `json:"transferId"`
	Transfer
	At string `json:"at"`
}

func (s *Service) plan(_ context.Context, c idemhttp.Call) (idemhttp.Plan, error) {
	var t Transfer
	if err := json.Unmarshal(c.Body, &t); err != nil {
		return idemhttp.Plan{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := t.validate(); err != nil {
		return idemhttp.Plan{}, err
	}
	id := keys.NewID("tr")
	return idemhttp.Plan{Invocation: []string{id},
		Effect: func(now time.Time) (*idempotency.Effect, error) { return s.effect(t, id, now) }}, nil
}

func (t Transfer) validate() error {
	for _, id := range []string{t.From, t.To} {
		if err := keys.ValidateID("walletId", id); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	switch {
	case t.From == t.To:
		return fmt.Errorf("%w: from and to are the same wallet", ErrInvalid)
	case t.Amount <= 0 || t.Amount > money.MaxMinor:
		return fmt.Errorf("%w: amount must be 1..%d minor units", ErrInvalid, money.MaxMinor)
	case !money.Currency(t.Currency).Valid():
		return fmt.Errorf("%w: unknown currency %q", ErrInvalid, t.Currency)
	}
	return nil
}

// effect is the transfer's three items: the guarded debit, the credit and
// the transfer itself.
func (s *Service) effect(t Transfer, id string, now time.Time) (*idempotency.Effect, error) {
	bal, cur := expression.Name("balance"), expression.Name("currency")
	exists := expression.AttributeExists(expression.Name(PartitionKey)).And(cur.Equal(expression.Value(t.Currency)))
	debit, err := s.update(t.From, expression.Set(bal, bal.Minus(expression.Value(t.Amount))),
		exists.And(bal.GreaterThanEqual(expression.Value(t.Amount))))
	if err != nil {
		return nil, err
	}
	credit, err := s.update(t.To, expression.Set(bal, bal.Plus(expression.Value(t.Amount))),
		exists.And(bal.LessThanEqual(expression.Value(money.MaxMinor-t.Amount))))
	if err != nil {
		return nil, err
	}
	r := Receipt{TransferID: id, Transfer: t, At: keys.Timestamp(now)}
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	eff := &idempotency.Effect{Status: http.StatusCreated, Body: json.RawMessage(body)}
	eff.Items.Add(itemDebit, debit)
	eff.Items.Add(itemCredit, credit)
	eff.Items.Add(itemTransfer, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table),
		Item: map[string]types.AttributeValue{
			PartitionKey: &types.AttributeValueMemberS{Value: WalletPrefix + t.From},
			SortKey:      &types.AttributeValueMemberS{Value: TransferPrefix + id},
			"receipt":    &types.AttributeValueMemberS{Value: string(body)},
		},
		ConditionExpression: aws.String("attribute_not_exists(" + PartitionKey + ")")}})
	return eff, nil
}

func (s *Service) update(wallet string, upd expression.UpdateBuilder, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{TableName: aws.String(s.table), Key: walletKey(wallet),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}}, nil
}

// problem maps a plan's or a cancelled transfer's error, by item name.
func problem(err error) idemhttp.Problem {
	var c *txn.CancelledError
	switch {
	case errors.As(err, &c) && c.Failed(itemDebit) && len(c.Item(itemDebit)) > 0:
		return idemhttp.Problem{Status: http.StatusConflict, Title: "Insufficient funds, or the wallet holds another currency", Detail: ErrInsufficientFunds.Error()}
	case errors.As(err, &c) && (c.Failed(itemDebit) || c.Failed(itemCredit)):
		return idemhttp.Problem{Status: http.StatusNotFound, Title: "No such wallet, or another currency", Detail: ErrNoWallet.Error()}
	case errors.Is(err, ErrInvalid):
		return idemhttp.Problem{Status: http.StatusBadRequest, Title: "Invalid transfer", Detail: err.Error()}
	}
	return idemhttp.DefaultError(err)
}
