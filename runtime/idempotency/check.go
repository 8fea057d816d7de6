package idempotency

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/oncetable/oncetable/runtime/txn"
)

// ConfigError is a table that does not match the [Options]: Option names
// the field to fix ("Options.Attributes.PartitionKey"), Problem says what
// the table has instead.
type ConfigError struct {
	Table   string
	Option  string
	Problem string
	// Err is the DynamoDB error that revealed it, if any.
	Err error
}

func (e *ConfigError) Error() string {
	msg := fmt.Sprintf("idempotency: table %s: %s; fix %s", e.Table, e.Problem, e.Option)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *ConfigError) Unwrap() error { return e.Err }

// describer is the part of a DynamoDB client that [Table.Check] needs;
// *dynamodb.Client is one.
type describer interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
}

var _ describer = (*dynamodb.Client)(nil)

// TableReport is what [Table.Check] read from the table's description.
type TableReport struct {
	PartitionKey, PartitionKeyType string
	SortKey, SortKeyType           string // empty when the table has no sort key
	// TTLAttribute is the attribute TTL deletes by ("" when TTL is off) and
	// TTLStatus its status (ENABLED, ENABLING, DISABLED, ...).
	TTLAttribute, TTLStatus string
}

// TTLEnabled reports whether TTL is on (or being turned on) for attribute.
func (r TableReport) TTLEnabled(attribute string) bool {
	on := r.TTLStatus == string(types.TimeToLiveStatusEnabled) || r.TTLStatus == string(types.TimeToLiveStatusEnabling)
	return on && r.TTLAttribute == attribute
}

// Check reads the table's description (DescribeTable and
// DescribeTimeToLive, two control-plane requests) and compares it with the
// options: both keys are Strings named as Options.Attributes names them,
// and TTL is on for Options.Attributes.TTL. Each mismatch is a
// *[ConfigError] naming the option to fix (several are joined). It needs a
// client with DescribeTable and DescribeTimeToLive (a *dynamodb.Client); run it once at start-up, not per request.
func (t *Table) Check(ctx context.Context) (TableReport, error) {
	d, ok := t.db.(describer)
	if !ok {
		return TableReport{}, fmt.Errorf("idempotency: Check needs a client with DescribeTable and DescribeTimeToLive (a *dynamodb.Client); %T has not", t.db)
	}
	desc, err := d.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.name)})
	if err != nil {
		var nf *types.ResourceNotFoundException
		if errors.As(err, &nf) {
			return TableReport{}, &ConfigError{Table: t.name, Option: "the table name given to NewTable", Problem: "no such table", Err: err}
		}
		return TableReport{}, fmt.Errorf("idempotency: check %s: %w", t.name, err)
	}
	rep := describeKeys(desc.Table)
	ttl, err := d.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(t.name)})
	if err != nil {
		return rep, fmt.Errorf("idempotency: check %s: %w", t.name, err)
	}
	if td := ttl.TimeToLiveDescription; td != nil {
		rep.TTLAttribute, rep.TTLStatus = aws.ToString(td.AttributeName), string(td.TimeToLiveStatus)
	}
	return rep, t.compare(rep)
}

func describeKeys(td *types.TableDescription) TableReport {
	var rep TableReport
	if td == nil {
		return rep
	}
	kinds := map[string]string{}
	for _, ad := range td.AttributeDefinitions {
		kinds[aws.ToString(ad.AttributeName)] = string(ad.AttributeType)
	}
	for _, ks := range td.KeySchema {
		name := aws.ToString(ks.AttributeName)
		if ks.KeyType == "HASH" {
			rep.PartitionKey, rep.PartitionKeyType = name, kinds[name]
		} else {
			rep.SortKey, rep.SortKeyType = name, kinds[name]
		}
	}
	return rep
}

func (t *Table) compare(rep TableReport) error {
	a := t.o.Attributes
	var errs []error
	bad := func(option, format string, args ...any) {
		errs = append(errs, &ConfigError{Table: t.name, Option: option, Problem: fmt.Sprintf(format, args...)})
	}
	if rep.PartitionKey != a.PartitionKey {
		bad("Options.Attributes.PartitionKey", "its partition key is %q, the options say %q", rep.PartitionKey, a.PartitionKey)
	} else if rep.PartitionKeyType != "S" {
		bad("the table's key schema", "partition key %q is of type %s, records need a String", rep.PartitionKey, rep.PartitionKeyType)
	}
	switch {
	case rep.SortKey == "":
		bad("the table's key schema", "it has no sort key; records need a String sort key (Options.Attributes.SortKey, now %q)", a.SortKey)
	case rep.SortKey != a.SortKey:
		bad("Options.Attributes.SortKey", "its sort key is %q, the options say %q", rep.SortKey, a.SortKey)
	case rep.SortKeyType != "S":
		bad("the table's key schema", "sort key %q is of type %s, records need a String", rep.SortKey, rep.SortKeyType)
	}
	switch {
	case rep.TTLEnabled(a.TTL):
	case rep.TTLAttribute != "" && rep.TTLAttribute != a.TTL:
		bad("Options.Attributes.TTL", "TTL is %s on %q, the options say %q", rep.TTLStatus, rep.TTLAttribute, a.TTL)
	default:
		bad("the table's time to live", "TTL is %s; expired records would never be deleted: enable it on %q (%s)",
			strings.ToLower(orDisabled(rep.TTLStatus)), a.TTL, TTLCommand(t.name, a))
	}
	return errors.Join(errs...)
}

func orDisabled(s string) string {
	if s == "" {
		return string(types.TimeToLiveStatusDisabled)
	}
	return s
}

// refused names the options behind a ValidationException about the
// record's key: the table's key names or types are not Options.Attributes',
// the commonest misconfiguration. Any other error, other validation errors
// included, is returned as it is: a ConfigError only ever means
// configuration.
func (t *Table) refused(err error) error {
	var api smithy.APIError
	isValidation := errors.As(err, &api) && api.ErrorCode() == "ValidationException" && keyProblem(api.ErrorMessage())
	var c *txn.CancelledError
	if errors.As(err, &c) && c.Code(RecordItem) == "ValidationError" && keyProblem(aws.ToString(c.Reasons[RecordItem].Message)) {
		isValidation = true
	}
	if !isValidation {
		return err
	}
	a := t.o.Attributes
	return &ConfigError{Table: t.name, Option: "Options.Attributes (PartitionKey, SortKey)",
		Problem: fmt.Sprintf("DynamoDB refused a record keyed %q/%q; do the table's keys have these names? (Table.Check tells)", a.PartitionKey, a.SortKey), Err: err}
}

// CreateTableInput is a CreateTable request for a table of records (and
// of the items your effects write next to them): String partition and sort
// keys named by a (zero fields take their defaults), on-demand billing.
// Turn TTL on after it is ACTIVE with [TimeToLiveInput].
func CreateTableInput(name string, a Attributes) *dynamodb.CreateTableInput {
	a = a.withDefaults()
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(a.PartitionKey), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(a.SortKey), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(a.PartitionKey), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(a.SortKey), KeyType: types.KeyTypeRange},
		},
	}
}

// TimeToLiveInput is the UpdateTimeToLive request that turns TTL on for
// a's TTL attribute, so DynamoDB deletes expired records.
func TimeToLiveInput(name string, a Attributes) *dynamodb.UpdateTimeToLiveInput {
	a = a.withDefaults()
	return &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(a.TTL), Enabled: aws.Bool(true)}}
}

// TTLCommand is the AWS CLI command equivalent to [TimeToLiveInput].
func TTLCommand(name string, a Attributes) string {
	a = a.withDefaults()
	return fmt.Sprintf("aws dynamodb update-time-to-live --table-name %s --time-to-live-specification Enabled=true,AttributeName=%s", name, a.TTL)
}

// CreateTable creates a table of records with [CreateTableInput], waits
// until it is ACTIVE (at most wait) and turns TTL on with
// [TimeToLiveInput]: the one call a new table needs. For a table made by
// CloudFormation or the CLI, run [Table.Check] instead.
func CreateTable(ctx context.Context, db *dynamodb.Client, name string, a Attributes, wait time.Duration) error {
	if _, err := db.CreateTable(ctx, CreateTableInput(name, a)); err != nil {
		return fmt.Errorf("idempotency: create table %s: %w", name, err)
	}
	if err := dynamodb.NewTableExistsWaiter(db).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, wait); err != nil {
		return fmt.Errorf("idempotency: wait for table %s: %w", name, err)
	}
	if _, err := db.UpdateTimeToLive(ctx, TimeToLiveInput(name, a)); err != nil {
		return fmt.Errorf("idempotency: enable TTL on %s: %w", name, err)
	}
	return nil
}

// keyProblem reports whether a ValidationException's message is about the
// item's key (a missing key attribute or one of the wrong type), which
// means the options' key names or the table's do not match.
func keyProblem(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "missing the key") || strings.Contains(m, "type mismatch for key") ||
		strings.Contains(m, "key element does not match") || strings.Contains(m, "key schema")
}
