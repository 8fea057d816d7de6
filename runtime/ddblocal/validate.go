package ddblocal

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/oncetable/oncetable/runtime/ddblocal/wire/ddb"
)

// Request validation as DynamoDB does it, before any table is looked up.
//
// DynamoDB checks a request in two passes. The first checks each member
// against the constraints of the API model (required, length, range, enum,
// pattern) and reports every violation together:
//
//	2 validation errors detected: Value 'X' at 'returnValues' failed to
//	satisfy constraint: Member must satisfy enum value set: [...]; Value ...
//
// The table name is checked before the rest, and a bad one is reported
// alone. The second pass (the operation's own semantics: key schema,
// expressions, items) stops at the first problem and is done by the
// operations themselves.
//
// Each input with model constraints implements validator: its validate
// method is the list of the operation's constraints, in DynamoDB's order.

// validator is an operation input with model constraints.
type validator interface {
	// validate checks the input's members in order, recording violations
	// in c. It may normalise the input (a table ARN becomes its name).
	validate(c *checker)
}

// validateRequest runs in's constraints against the request body it was
// decoded from: its own first pass when it has one (validator), else the
// model's for the operation opName (modelcheck.go).
func validateRequest(opName string, body []byte, in any) error {
	v, ok := in.(validator)
	if !ok && opName == "" {
		return nil
	}
	// Pooled: the checker escapes through the interface call, and this
	// runs on every request.
	c := checkerPool.Get().(*checker)
	c.body = body
	if ok {
		v.validate(c)
	} else {
		checkModel(c, opName)
	}
	err := c.err()
	*c = checker{errs: c.errs[:0]}
	checkerPool.Put(c)
	return err
}

var checkerPool = sync.Pool{New: func() any { return new(checker) }}

// maxViolations is how many violations DynamoDB lists at most.
const maxViolations = 10

// checker collects the violations of one request. Nothing is allocated
// while every constraint holds.
type checker struct {
	body    []byte
	members map[string]json.RawMessage // top-level members, parsed on demand
	errs    []string
	// final, when set, is reported alone and ends the checks: a bad table
	// name, or a required-parameter error.
	final error
}

// done reports whether a final error was recorded; later checks are skipped.
func (c *checker) done() bool { return c.final != nil }

func (c *checker) err() error {
	if c.final != nil {
		return c.final
	}
	switch len(c.errs) {
	case 0:
		return nil
	case 1:
		return validationf("1 validation error detected: %s", c.errs[0])
	}
	return validationf("%d validation errors detected: %s", len(c.errs), strings.Join(c.errs, "; "))
}

// stop records a final error unless one was recorded already.
func (c *checker) stop(err error) {
	if c.final == nil {
		c.final = err
	}
}

// violation shapes: how the offending value is shown.
const (
	showValue = iota // Value 'v' at ...
	showNull         // Value null at ...
	showNone         // Value at ...
)

// add records "Value … at 'path' failed to satisfy constraint: constraint".
func (c *checker) add(show int, value, path, constraint string) {
	if c.final != nil || len(c.errs) >= maxViolations {
		return
	}
	var b strings.Builder
	b.WriteString("Value ")
	switch show {
	case showValue:
		b.WriteString("'" + value + "' ")
	case showNull:
		b.WriteString("null ")
	}
	b.WriteString("at '" + path + "' failed to satisfy constraint: " + constraint)
	c.errs = append(c.errs, b.String())
}

// present reports whether the request has the top-level member name with
// a non-null value. It parses the body, so it is only asked when a zero
// value leaves the question open.
func (c *checker) present(name string) bool {
	return len(c.raw(name)) > 0
}

// raw returns the JSON of a top-level member, nil when absent or null.
func (c *checker) raw(name string) json.RawMessage {
	if c.members == nil {
		c.members = map[string]json.RawMessage{}
		_ = json.Unmarshal(c.body, &c.members)
	}
	m := c.members[name]
	if string(bytes.TrimSpace(m)) == "null" {
		return nil
	}
	return m
}

// notNull checks a required member that has no requirement of its own.
func (c *checker) notNull(path string, present bool) {
	if !present {
		c.add(showNull, "", path, "Member must not be null")
	}
}

// enum checks an optional string member against its value set, listed as
// DynamoDB lists it.
func (c *checker) enum(path, v string, set ...string) {
	if v == "" {
		return
	}
	for _, s := range set {
		if v == s {
			return
		}
	}
	c.add(showValue, v, path, "Member must satisfy enum value set: ["+strings.Join(set, ", ")+"]")
}

// minValue checks an optional integer member's lower bound; show says how
// the value appears in the message (Query shows none).
func (c *checker) minValue(path string, v *int, min, show int) {
	if v != nil && *v < min {
		c.add(show, strconv.Itoa(*v), path, "Member must have value greater than or equal to "+strconv.Itoa(min))
	}
}

// maxValue checks an optional integer member's upper bound.
func (c *checker) maxValue(path string, v *int, max int) {
	if v != nil && *v > max {
		c.add(showValue, strconv.Itoa(*v), path, "Member must have value less than or equal to "+strconv.Itoa(max))
	}
}

// The enum value sets, from the model, in the order DynamoDB's messages
// list them (enumOrder).
var (
	enumReturnConsumedCapacity = modelEnum(ddb.ShapeReturnConsumedCapacity)
	enumReturnValues           = modelEnum(ddb.ShapeReturnValue)
	enumReturnItemCollection   = modelEnum(ddb.ShapeReturnItemCollectionMetrics)
	enumOnConditionFailure     = modelEnum(ddb.ShapeReturnValuesOnConditionCheckFailure)
	enumSelect                 = modelEnum(ddb.ShapeSelect)
	enumKeyType                = modelEnum(ddb.ShapeKeyType)
	enumAttributeType          = modelEnum(ddb.ShapeScalarAttributeType)
	enumBillingMode            = modelEnum(ddb.ShapeBillingMode)
)

// Table names, from the model: TableName (3 to 255 characters of
// [a-zA-Z0-9_.-]) when a table is created; the operations on an existing
// table take a TableArn (1 to 1024), the table's name or its ARN.
var (
	tableNamePattern  = ddb.Shapes[ddb.ShapeTableName].Pattern
	minTableNameLen   = int(ddb.Shapes[ddb.ShapeTableName].Min)
	maxTableNameLen   = int(ddb.Shapes[ddb.ShapeTableName].Max)
	maxTableARNLength = int(ddb.Shapes[ddb.ShapeTableArn].Max)
)

// tableNameStyle says how a missing table name is reported.
type tableNameStyle int

const (
	// nullName: "Value null at 'tableName' … Member must not be null".
	nullName tableNameStyle = iota
	// requiredName: "The parameter 'TableName' is required but was not
	// present in the request" (CreateTable).
	requiredName
)

// tableName checks the table name member (at path, for the request member
// member) and reports a bad one alone. A table ARN is accepted when
// minLen is 1 and *name is replaced by the table's name.
func (c *checker) tableName(path, member string, name *string, minLen int, style tableNameStyle) {
	if c.done() {
		return
	}
	n := *name
	if n == "" && !c.present(member) {
		if style == requiredName {
			c.stop(validationf("The parameter '%s' is required but was not present in the request", member))
			return
		}
		c.stop(validationf("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", path))
		return
	}
	if minLen == 1 && strings.HasPrefix(n, "arn:") {
		resolved, ok := tableNameOfARN(n)
		if !ok || len(n) > maxTableARNLength {
			c.stop(validationf("Invalid TableName: %s is not a valid table name or table ARN", n))
			return
		}
		*name = resolved
		return
	}
	var sub checker
	// An empty name breaks only the length bound.
	if n != "" && !validNameChars(n) {
		sub.add(showValue, n, path, "Member must satisfy regular expression pattern: "+tableNamePattern)
	}
	if len(n) < minLen {
		sub.add(showValue, n, path, "Member must have length greater than or equal to "+strconv.Itoa(minLen))
	}
	if len(n) > maxTableNameLen {
		sub.add(showValue, n, path, "Member must have length less than or equal to "+strconv.Itoa(maxTableNameLen))
	}
	if err := sub.err(); err != nil {
		c.stop(err)
	}
}

func validNameChars(s string) bool {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '.' || ch == '-') {
			return false
		}
	}
	return s != ""
}

// tableNameOfARN returns the name in a table ARN,
// arn:partition:dynamodb:region:account:table/name, when well formed.
func tableNameOfARN(arn string) (string, bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[1] == "" || parts[2] != "dynamodb" || parts[3] == "" || parts[4] == "" {
		return "", false
	}
	name, ok := strings.CutPrefix(parts[5], "table/")
	if !ok || strings.Contains(name, "/") || !validNameChars(name) || len(name) < minTableNameLen || len(name) > maxTableNameLen {
		return "", false
	}
	return name, true
}

// javaString renders a JSON value the way DynamoDB echoes a request member
// in a validation message (Java's toString of maps and lists): {k=v, …},
// [a, b], strings unquoted. Object keys are sorted.
func javaString(raw json.RawMessage) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return string(raw)
	}
	var b strings.Builder
	writeJava(&b, v)
	return b.String()
}

func writeJava(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + "=")
			writeJava(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJava(b, e)
		}
		b.WriteByte(']')
	case nil:
		b.WriteString("null")
	case string:
		b.WriteString(x)
	default:
		b.WriteString(strings.TrimSpace(string(mustJSON(x))))
	}
}

func mustJSON(v any) []byte {
	out, _ := json.Marshal(v)
	return out
}

// keySchemaString renders a KeySchema as DynamoDB echoes it.
func keySchemaString(elems []keySchemaElement) string {
	parts := make([]string, len(elems))
	for i, e := range elems {
		parts[i] = "KeySchemaElement(attributeName=" + e.AttributeName + ", keyType=" + e.KeyType + ")"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// member returns the path of the i-th (0-based) element of a list member,
// as DynamoDB names it: keySchema.1.member.
func member(list string, i int) string {
	return list + "." + strconv.Itoa(i+1) + ".member"
}

// namedExpr is an expression parameter of the request and whether it was
// given.
type namedExpr struct {
	name  string
	given bool
}

// valuesNeedExpression reports ExpressionAttributeValues given without any
// of the operation's expressions that can use them (ProjectionExpression
// cannot), naming those expressions as DynamoDB does:
// "…: UpdateExpression and ConditionExpression are null". It is checked
// once the members satisfy their constraints.
func (c *checker) valuesNeedExpression(values bool, exprs ...namedExpr) {
	if !values || c.done() || len(c.errs) > 0 {
		return
	}
	names := make([]string, 0, len(exprs))
	for _, x := range exprs {
		if x.given {
			return
		}
		names = append(names, x.name)
	}
	verb := "is"
	if len(names) > 1 {
		verb = "are"
	}
	c.stop(validationf("ExpressionAttributeValues can only be specified when using expressions: %s %s null", strings.Join(names, " and "), verb))
}
