package freeze

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/runtime/txn"
)

// All is the scope that freezes every money flow.
const All = "all"

// Keys and entity types of the switch's items.
const (
	ControlPartition = "CONTROL#freeze"
	AuditPartition   = "AUDIT#freeze"
	scopePrefix      = "SCOPE#"
	EntityFreeze     = "Freeze"
	EntityAudit      = "FreezeAudit"
)

// Defaults of Options.
const (
	DefaultCacheTTL   = 5 * time.Second
	DefaultRetryAfter = 30 * time.Second
)

// Sentinels.
var (
	// ErrFrozen is what every *FrozenError unwraps to.
	ErrFrozen = errors.New("money movement is frozen")
	// ErrAlreadyFrozen: Freeze of a scope that is frozen.
	ErrAlreadyFrozen = errors.New("freeze: scope is already frozen")
	// ErrNotFrozen: Unfreeze of a scope that is not frozen.
	ErrNotFrozen = errors.New("freeze: scope is not frozen")
	// ErrInvalid: an empty or malformed scope, operator or reason.
	ErrInvalid = errors.New("freeze: invalid request")
)

// FrozenError refuses a request of Flow because Scope (the flow or All) is
// frozen. It says nothing of the reason, which is for operators.
type FrozenError struct {
	Flow, Scope string
	// RetryAfter is Options.RetryAfter, for the Retry-After header.
	RetryAfter time.Duration
}

func (e *FrozenError) Error() string {
	if e.Scope == All {
		return "money movement is paused by the operators; retry later with the same Idempotency-Key"
	}
	return fmt.Sprintf("the %s flow is paused by the operators; retry later with the same Idempotency-Key", e.Flow)
}

// Unwrap makes errors.Is(err, ErrFrozen) hold.
func (e *FrozenError) Unwrap() error { return ErrFrozen }

// State is one frozen scope.
type State struct {
	Scope  string    `dynamodbav:"scope"`
	By     string    `dynamodbav:"by"`
	Reason string    `dynamodbav:"reason"`
	At     time.Time `dynamodbav:"at"`
}

// Audit is one freeze or unfreeze, as recorded.
type Audit struct {
	Action string    `dynamodbav:"action"` // "freeze" or "unfreeze"
	Scope  string    `dynamodbav:"scope"`
	By     string    `dynamodbav:"by"`
	Reason string    `dynamodbav:"reason"`
	At     time.Time `dynamodbav:"at"`
}

// DB is the part of the DynamoDB client the switch uses.
type DB interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Options configure a Switch.
type Options struct {
	// Table is the table name. Default: schema.DefaultTableName.
	Table string
	// Schema names the key attributes. Default: schema.Default().
	Schema schema.Schema
	// CacheTTL is how long Check trusts its last read: the bound within
	// which a freeze or an unfreeze reaches every function. Default 5s.
	CacheTTL time.Duration
	// RetryAfter is what a refused caller is told to wait. Default 30s.
	RetryAfter time.Duration
	// Clock is the time source. Default: time.Now.
	Clock func() time.Time
}

// Switch reads and changes the freezes of one table. It is safe for
// concurrent use; build one per function instance.
type Switch struct {
	db DB
	o  Options

	mu   sync.Mutex
	seen map[string]reading
}

// reading is what Check last read of one scope.
type reading struct {
	frozen bool
	at     time.Time
}

// New returns the switch of the table on db.
func New(db DB, optFns ...func(*Options)) *Switch {
	o := Options{}
	for _, fn := range optFns {
		fn(&o)
	}
	o.Table = cmp.Or(o.Table, schema.DefaultTableName)
	o.Schema = o.Schema.WithDefaults()
	o.CacheTTL = cmp.Or(o.CacheTTL, DefaultCacheTTL)
	o.RetryAfter = cmp.Or(o.RetryAfter, DefaultRetryAfter)
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return &Switch{db: db, o: o, seen: map[string]reading{}}
}

// CacheTTL is the bound within which a change reaches Check.
func (s *Switch) CacheTTL() time.Duration { return s.o.CacheTTL }

// Check returns a *FrozenError when All or flow is frozen, as read at most
// CacheTTL ago, or the error of a read. Each scope is one strongly
// consistent GetItem of its control item (the functions' own grant), made
// when the last read of it is CacheTTL old.
func (s *Switch) Check(ctx context.Context, flow string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.o.Clock()
	for _, scope := range []string{All, flow} {
		r, ok := s.seen[scope]
		if !ok || now.Sub(r.at) >= s.o.CacheTTL {
			out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.o.Table), Key: s.key(ControlPartition, scopePrefix+scope),
				ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String("#pk"), ExpressionAttributeNames: map[string]string{"#pk": s.o.Schema.PartitionKey}})
			if err != nil {
				return fmt.Errorf("freeze: read the control item of %s: %w", scope, err)
			}
			r = reading{frozen: len(out.Item) > 0, at: now}
			s.seen[scope] = r
		}
		if r.frozen {
			return &FrozenError{Flow: flow, Scope: scope, RetryAfter: s.o.RetryAfter}
		}
	}
	return nil
}

// States lists the frozen scopes, read now (strongly consistent).
func (s *Switch) States(ctx context.Context) ([]State, error) {
	var states []State
	err := s.query(ctx, ControlPartition, func(item map[string]types.AttributeValue) error {
		var st State
		if err := attributevalue.UnmarshalMap(item, &st); err != nil {
			return err
		}
		states = append(states, st)
		return nil
	})
	return states, err
}

// History lists the freezes and unfreezes, oldest first.
func (s *Switch) History(ctx context.Context) ([]Audit, error) {
	var out []Audit
	err := s.query(ctx, AuditPartition, func(item map[string]types.AttributeValue) error {
		var a Audit
		if err := attributevalue.UnmarshalMap(item, &a); err != nil {
			return err
		}
		out = append(out, a)
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, err
}

func (s *Switch) query(ctx context.Context, partition string, each func(map[string]types.AttributeValue) error) error {
	expr, err := expression.NewBuilder().WithKeyCondition(expression.Key(s.o.Schema.PartitionKey).Equal(expression.Value(partition))).Build()
	if err != nil {
		return err
	}
	in := &dynamodb.QueryInput{
		TableName: aws.String(s.o.Table), ConsistentRead: aws.Bool(true),
		KeyConditionExpression: expr.KeyCondition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}
	for {
		out, err := s.db.Query(ctx, in)
		if err != nil {
			return fmt.Errorf("freeze: read %s: %w", partition, err)
		}
		for _, item := range out.Items {
			if err := each(item); err != nil {
				return fmt.Errorf("freeze: item of %s: %w", partition, err)
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// Freeze stops scope (All or a flow) and records who and why.
func (s *Switch) Freeze(ctx context.Context, scope, by, reason string) error {
	return s.change(ctx, "freeze", scope, by, reason)
}

// Unfreeze restores scope and records who and why.
func (s *Switch) Unfreeze(ctx context.Context, scope, by, reason string) error {
	return s.change(ctx, "unfreeze", scope, by, reason)
}

func (s *Switch) change(ctx context.Context, action, scope, by, reason string) error {
	if err := validate(scope, by, reason); err != nil {
		return err
	}
	now := s.o.Clock().UTC()
	key := s.key(ControlPartition, scopePrefix+scope)
	var control types.TransactWriteItem
	switch action {
	case "freeze":
		item, err := attributevalue.MarshalMap(State{Scope: scope, By: by, Reason: reason, At: now})
		if err != nil {
			return err
		}
		cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(s.o.Schema.PartitionKey))).Build()
		if err != nil {
			return err
		}
		for k, v := range key {
			item[k] = v
		}
		item[s.o.Schema.EntityType] = &types.AttributeValueMemberS{Value: EntityFreeze}
		control.Put = &types.Put{TableName: aws.String(s.o.Table), Item: item, ConditionExpression: cond.Condition(),
			ExpressionAttributeNames: cond.Names(), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}
	default:
		cond, err := expression.NewBuilder().WithCondition(expression.AttributeExists(expression.Name(s.o.Schema.PartitionKey))).Build()
		if err != nil {
			return err
		}
		control.Delete = &types.Delete{TableName: aws.String(s.o.Table), Key: key, ConditionExpression: cond.Condition(),
			ExpressionAttributeNames: cond.Names()}
	}
	audit, err := attributevalue.MarshalMap(Audit{Action: action, Scope: scope, By: by, Reason: reason, At: now})
	if err != nil {
		return err
	}
	for k, v := range s.key(AuditPartition, now.Format(time.RFC3339Nano)+"#"+action+"#"+scope) {
		audit[k] = v
	}
	audit[s.o.Schema.EntityType] = &types.AttributeValueMemberS{Value: EntityAudit}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(s.o.Schema.PartitionKey))).Build()
	if err != nil {
		return err
	}
	var tx txn.Items
	tx.Add("control", control)
	tx.Add("audit", types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.o.Table), Item: audit,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names()}})
	if err := tx.Err(); err != nil {
		return err
	}
	_, err = s.db.TransactWriteItems(ctx, tx.Input())
	if c, ok := txn.Cancelled(err, &tx); ok && c.Failed("control") {
		if action == "unfreeze" {
			return fmt.Errorf("%w: %s", ErrNotFrozen, scope)
		}
		var st State
		_ = attributevalue.UnmarshalMap(c.Item("control"), &st)
		return fmt.Errorf("%w: %s, by %s at %s: %s", ErrAlreadyFrozen, scope, st.By, st.At.Format(time.RFC3339), st.Reason)
	}
	if err != nil {
		return fmt.Errorf("freeze: %s %s: %w", action, scope, err)
	}
	s.mu.Lock()
	delete(s.seen, scope) // this instance sees its own change at once
	s.mu.Unlock()
	return nil
}

func (s *Switch) key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		s.o.Schema.PartitionKey: &types.AttributeValueMemberS{Value: pk},
		s.o.Schema.SortKey:      &types.AttributeValueMemberS{Value: sk},
	}
}

// validate refuses an empty scope, operator or reason, and a scope that is
// not a flow-like name (lower camel case letters and digits).
func validate(scope, by, reason string) error {
	var problems []string
	if scope == "" {
		problems = append(problems, "the scope (all, or a money flow) is empty")
	}
	for _, r := range scope {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			problems = append(problems, fmt.Sprintf("the scope %q is not all or a flow name", scope))
			break
		}
	}
	if strings.TrimSpace(by) == "" {
		problems = append(problems, "who (the operator) is empty")
	}
	if strings.TrimSpace(reason) == "" {
		problems = append(problems, "why (the reason) is empty")
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(problems, "; "))
	}
	return nil
}
