package tracing

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span attributes of the AWS calls, beside OpenTelemetry's rpc.* and
// aws.request_id.
const (
	AttrTables             = attribute.Key("aws.dynamodb.table_names")
	AttrCapacityUnits      = attribute.Key("aws.dynamodb.consumed_capacity.units")
	AttrReadCapacityUnits  = attribute.Key("aws.dynamodb.consumed_capacity.read_units")
	AttrWriteCapacityUnits = attribute.Key("aws.dynamodb.consumed_capacity.write_units")
	// AttrCancellationReasons are a cancelled transaction's reason codes,
	// one per item in order ("None", "ConditionalCheckFailed", ...).
	AttrCancellationReasons = attribute.Key("aws.dynamodb.cancellation_reasons")
	AttrErrorCode           = attribute.Key("aws.error_code")
	AttrEntries             = attribute.Key("aws.eventbridge.entries")
	AttrFailedEntries       = attribute.Key("aws.eventbridge.failed_entries")
)

// DynamoDB makes a span of every call of a DynamoDB client, with the
// capacity it consumed and a cancelled transaction's reasons:
//
//	dynamodb.NewFromConfig(cfg, tracing.DynamoDB)
//
// When the span records, a call that asks for no consumed capacity asks
// for TOTAL (free of charge) on a copy of its input.
func DynamoDB(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, addMiddleware) }

// EventBridge makes a span of every call of an EventBridge client, with the
// number of entries put and failed.
func EventBridge(o *eventbridge.Options) { o.APIOptions = append(o.APIOptions, addMiddleware) }

func addMiddleware(stack *middleware.Stack) error {
	// After the operation's own initializers, which name the service and
	// the operation in the context.
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("oncetable/tracing", spanAround), middleware.After)
}

func spanAround(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	service, op := awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx)
	ctx, span := Tracer().Start(ctx, service+"."+op, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("rpc.system", "aws-api"), attribute.String("rpc.service", service), attribute.String("rpc.method", op)))
	defer span.End()
	if !span.IsRecording() {
		return next.HandleInitialize(ctx, in)
	}
	in.Parameters = askCapacity(in.Parameters)
	if t := tables(in.Parameters); len(t) > 0 {
		span.SetAttributes(AttrTables.StringSlice(t))
	}
	out, md, err := next.HandleInitialize(ctx, in)
	if id, ok := awsmiddleware.GetRequestIDMetadata(md); ok {
		span.SetAttributes(attribute.String("aws.request_id", id))
	}
	span.SetAttributes(outputAttrs(out.Result)...)
	if err != nil {
		span.SetAttributes(errorAttrs(err)...)
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return out, md, err
}

// askCapacity returns a copy of a DynamoDB input that asks for its
// consumed capacity, when it asks for none.
func askCapacity(p any) any {
	total := ddbtypes.ReturnConsumedCapacityTotal
	switch v := p.(type) {
	case *dynamodb.GetItemInput:
		if v.ReturnConsumedCapacity == "" {
			c := *v
			c.ReturnConsumedCapacity = total
			return &c
		}
	case *dynamodb.PutItemInput:
		if v.ReturnConsumedCapacity == "" {
			c := *v
			c.ReturnConsumedCapacity = total
			return &c
		}
	case *dynamodb.UpdateItemInput:
		if v.ReturnConsumedCapacity == "" {
			c := *v
			c.ReturnConsumedCapacity = total
			return &c
		}
	case *dynamodb.DeleteItemInput:
		if v.ReturnConsumedCapacity == "" {
			c := *v
			c.ReturnConsumedCapacity = total
			return &c
		}
	case *dynamodb.QueryInput:
		if v.ReturnConsumedCapacity == "" {
			c := *v
			c.ReturnConsumedCapacity = total
			return &c
		}
	case *dynamodb.ScanInput:
		if v.ReturnConsumedCapacity == "" {
			c := *v
			c.ReturnConsumedCapacity = total
			return &c
		}
	case *dynamodb.TransactWriteItemsInput:
		if v.ReturnConsumedCapacity == "" {
			c := *v
			c.ReturnConsumedCapacity = total
			return &c
		}
	case *dynamodb.TransactGetItemsInput:
		if v.ReturnConsumedCapacity == "" {
			c := *v
			c.ReturnConsumedCapacity = total
			return &c
		}
	case *dynamodb.BatchGetItemInput:
		if v.ReturnConsumedCapacity == "" {
			c := *v
			c.ReturnConsumedCapacity = total
			return &c
		}
	case *dynamodb.BatchWriteItemInput:
		if v.ReturnConsumedCapacity == "" {
			c := *v
			c.ReturnConsumedCapacity = total
			return &c
		}
	}
	return p
}

// tables names the tables a DynamoDB input reads or writes.
func tables(p any) []string {
	var names []string
	add := func(n *string) {
		if n != nil && *n != "" {
			for _, have := range names {
				if have == *n {
					return
				}
			}
			names = append(names, *n)
		}
	}
	switch v := p.(type) {
	case *dynamodb.GetItemInput:
		add(v.TableName)
	case *dynamodb.PutItemInput:
		add(v.TableName)
	case *dynamodb.UpdateItemInput:
		add(v.TableName)
	case *dynamodb.DeleteItemInput:
		add(v.TableName)
	case *dynamodb.QueryInput:
		add(v.TableName)
	case *dynamodb.ScanInput:
		add(v.TableName)
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range v.TransactItems {
			switch {
			case it.Put != nil:
				add(it.Put.TableName)
			case it.Update != nil:
				add(it.Update.TableName)
			case it.Delete != nil:
				add(it.Delete.TableName)
			case it.ConditionCheck != nil:
				add(it.ConditionCheck.TableName)
			}
		}
	case *dynamodb.BatchGetItemInput:
		for n := range v.RequestItems {
			add(aws.String(n))
		}
	case *dynamodb.BatchWriteItemInput:
		for n := range v.RequestItems {
			add(aws.String(n))
		}
	}
	return names
}

// outputAttrs are the consumed capacity of a DynamoDB output and the
// entries of a PutEvents output.
func outputAttrs(r any) []attribute.KeyValue {
	var cc []ddbtypes.ConsumedCapacity
	one := func(c *ddbtypes.ConsumedCapacity) {
		if c != nil {
			cc = append(cc, *c)
		}
	}
	switch v := r.(type) {
	case *dynamodb.GetItemOutput:
		one(v.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		one(v.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		one(v.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		one(v.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		one(v.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		one(v.ConsumedCapacity)
	case *dynamodb.TransactWriteItemsOutput:
		cc = v.ConsumedCapacity
	case *dynamodb.TransactGetItemsOutput:
		cc = v.ConsumedCapacity
	case *dynamodb.BatchGetItemOutput:
		cc = v.ConsumedCapacity
	case *dynamodb.BatchWriteItemOutput:
		cc = v.ConsumedCapacity
	case *eventbridge.PutEventsOutput:
		return []attribute.KeyValue{AttrEntries.Int(len(v.Entries)), AttrFailedEntries.Int(int(v.FailedEntryCount))}
	}
	if len(cc) == 0 {
		return nil
	}
	var units, reads, writes float64
	for _, c := range cc {
		units += aws.ToFloat64(c.CapacityUnits)
		reads += aws.ToFloat64(c.ReadCapacityUnits)
		writes += aws.ToFloat64(c.WriteCapacityUnits)
	}
	attrs := []attribute.KeyValue{AttrCapacityUnits.Float64(units)}
	if reads > 0 {
		attrs = append(attrs, AttrReadCapacityUnits.Float64(reads))
	}
	if writes > 0 {
		attrs = append(attrs, AttrWriteCapacityUnits.Float64(writes))
	}
	return attrs
}

// errorAttrs are the error code of a failed call and, for a cancelled
// transaction, its reasons in item order.
func errorAttrs(err error) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		attrs = append(attrs, AttrErrorCode.String(apiErr.ErrorCode()))
	}
	var tce *ddbtypes.TransactionCanceledException
	if errors.As(err, &tce) {
		reasons := make([]string, len(tce.CancellationReasons))
		for i, r := range tce.CancellationReasons {
			reasons[i] = aws.ToString(r.Code)
		}
		attrs = append(attrs, AttrCancellationReasons.StringSlice(reasons))
	}
	return attrs
}
