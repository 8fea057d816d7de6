package ddblocal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/oncetable/oncetable/runtime/ddblocal/wire"
	"github.com/oncetable/oncetable/runtime/ddblocal/wire/ddb"
	"github.com/oncetable/oncetable/runtime/ddblocal/wire/streams"
)

// The first validation pass from the API model (package wire): every
// required member, length, range, enum and pattern of an operation's input,
// in DynamoDB's message form. The operations with a hand-tuned first pass
// (validate_ops.go: the item operations, Query, Scan, batches,
// transactions, tables) keep it, since they run on every data-plane
// request and DynamoDB orders their messages in ways the model does not
// say; every other operation is checked here from the model alone.

// modelInput is an operation's input shape in a generated table.
type modelInput struct {
	shapes []wire.Shape
	id     wire.ShapeID
}

// modelInputs are the input shapes of DynamoDB's and DynamoDB Streams'
// operations by name (the two sets of names are disjoint).
var modelInputs = func() map[string]modelInput {
	m := map[string]modelInput{}
	for name, o := range ddb.Operations {
		if o.HasInput {
			m[name] = modelInput{ddb.Shapes, o.Input}
		}
	}
	for name, o := range streams.Operations {
		if o.HasInput {
			m[name] = modelInput{streams.Shapes, o.Input}
		}
	}
	return m
}()

// valueShapes are shapes whose content is data, checked by the engine when
// it decodes them (attr), not here.
var valueShapes = map[string]bool{"AttributeValue": true}

// checkModel checks body, an operation's input, against the model's
// constraints, recording violations in c.
func checkModel(c *checker, opName string) {
	in, ok := modelInputs[opName]
	if !ok {
		return
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(c.body))
	d.UseNumber()
	if len(bytes.TrimSpace(c.body)) == 0 {
		v = map[string]any{}
	} else if d.Decode(&v) != nil {
		return // the decoder reports a malformed body
	}
	mc := modelChecker{c: c, shapes: in.shapes}
	mc.structure("", in.id, v)
}

type modelChecker struct {
	c      *checker
	shapes []wire.Shape
}

// memberPath is DynamoDB's path of a member: lower camel case, dotted.
func memberPath(parent, name string) string {
	name = strings.ToLower(name[:1]) + name[1:]
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func (mc *modelChecker) structure(path string, id wire.ShapeID, v any) {
	obj, ok := v.(map[string]any)
	if !ok {
		return // a type mismatch is the decoder's to report
	}
	for _, m := range mc.shapes[id].Members {
		p := memberPath(path, m.Name)
		mv, present := obj[m.Name]
		if !present || mv == nil {
			if m.Required {
				mc.c.add(showNull, "", p, "Member must not be null")
			}
			continue
		}
		mc.value(p, m.Shape, mv)
	}
}

func (mc *modelChecker) value(path string, id wire.ShapeID, v any) {
	s := &mc.shapes[id]
	if valueShapes[s.Name] {
		return
	}
	switch s.Kind {
	case wire.KindStructure:
		mc.structure(path, id, v)
	case wire.KindList:
		list, ok := v.([]any)
		if !ok {
			return
		}
		mc.size(path, s, len(list), v)
		for i, e := range list {
			if e != nil {
				mc.value(member(path, i), s.Elem, e)
			}
		}
	case wire.KindMap:
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		mc.size(path, s, len(obj), v)
		mc.mapKeys(path, s, obj)
		for _, k := range sortedKeys(obj) {
			if e := obj[k]; e != nil {
				mc.value(path+"."+k+".member", s.Value, e)
			}
		}
	case wire.KindString:
		str, ok := v.(string)
		if !ok {
			return
		}
		mc.str(path, s, str)
	case wire.KindBlob:
		str, ok := v.(string)
		if !ok {
			return
		}
		if b, err := base64.StdEncoding.DecodeString(str); err == nil {
			mc.size(path, s, len(b), v)
		}
	case wire.KindInteger, wire.KindLong:
		n, ok := v.(json.Number)
		if !ok {
			return
		}
		if i, err := n.Int64(); err == nil {
			mc.bounds(path, s, i)
		}
	}
}

// str checks a string's pattern, length and enum.
func (mc *modelChecker) str(path string, s *wire.Shape, v string) {
	if s.Pattern != "" && !patternMatches(s.Pattern, v) {
		mc.c.add(showValue, v, path, "Member must satisfy regular expression pattern: "+s.Pattern)
	}
	// Boxed for the message only when the length breaks a bound: this runs
	// on transactions' ClientRequestToken.
	if n := int64(javaLength(v)); s.HasMin && n < s.Min || s.HasMax && n > s.Max {
		mc.size(path, s, int(n), v)
	}
	if len(s.Enum) > 0 {
		mc.c.enum(path, v, enumMessageOrder(s)...)
	}
}

// size checks a length (string, blob, list, map) against Min and Max.
func (mc *modelChecker) size(path string, s *wire.Shape, n int, v any) {
	if s.HasMin && int64(n) < s.Min {
		mc.c.add(showValue, shown(v), path, "Member must have length greater than or equal to "+strconv.FormatInt(s.Min, 10))
	}
	if s.HasMax && int64(n) > s.Max {
		mc.c.add(showValue, shown(v), path, "Member must have length less than or equal to "+strconv.FormatInt(s.Max, 10))
	}
}

// bounds checks a number against Min and Max.
func (mc *modelChecker) bounds(path string, s *wire.Shape, n int64) {
	if s.HasMin && n < s.Min {
		mc.c.add(showValue, strconv.FormatInt(n, 10), path, "Member must have value greater than or equal to "+strconv.FormatInt(s.Min, 10))
	}
	if s.HasMax && n > s.Max {
		mc.c.add(showValue, strconv.FormatInt(n, 10), path, "Member must have value less than or equal to "+strconv.FormatInt(s.Max, 10))
	}
}

// mapKeys checks a map's keys against its key shape, reported once for the
// map as DynamoDB does: "Map keys must satisfy constraint: […]".
func (mc *modelChecker) mapKeys(path string, s *wire.Shape, obj map[string]any) {
	ks := &mc.shapes[s.Key]
	var rules []string
	if ks.HasMax {
		rules = append(rules, "Member must have length less than or equal to "+strconv.FormatInt(ks.Max, 10))
	}
	if ks.HasMin {
		rules = append(rules, "Member must have length greater than or equal to "+strconv.FormatInt(ks.Min, 10))
	}
	if ks.Pattern != "" {
		rules = append(rules, "Member must satisfy regular expression pattern: "+ks.Pattern)
	}
	if len(rules) == 0 {
		return
	}
	for k := range obj {
		n := int64(javaLength(k))
		if ks.HasMax && n > ks.Max || ks.HasMin && n < ks.Min || ks.Pattern != "" && !patternMatches(ks.Pattern, k) {
			mc.c.add(showValue, shown(obj), path, "Map keys must satisfy constraint: ["+strings.Join(rules, ", ")+"]")
			return
		}
	}
}

// shown renders a value as a validation message echoes it.
func shown(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b strings.Builder
	writeJava(&b, v)
	return b.String()
}

// javaLength is a string's length as DynamoDB (Java) counts it, in UTF-16
// code units.
func javaLength(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n += utf16.RuneLen(r)
	}
	return n
}

// enumOrder is the order DynamoDB's messages list some enums' values in,
// where it differs from the model's (observed on DynamoDB's endpoint; the
// conformance suite checks them). TestEnumOrderIsTheModels checks that each
// lists exactly the model's values.
var enumOrder = map[string][]string{
	"ReturnValue":            {"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"},
	"ReturnConsumedCapacity": {"INDEXES", "TOTAL", "NONE"},
	"Select":                 {"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"},
	"ScalarAttributeType":    {"B", "N", "S"},
}

// enumMessageOrder is s's values in the order a message lists them.
func enumMessageOrder(s *wire.Shape) []string {
	if o, ok := enumOrder[s.Name]; ok {
		return o
	}
	return s.Enum
}

// modelEnum returns the values of the enum shape id of DynamoDB's model in
// message order.
func modelEnum(id wire.ShapeID) []string { return enumMessageOrder(&ddb.Shapes[id]) }

var patterns sync.Map // Java pattern -> *regexp.Regexp, nil when RE2 cannot express it

// patternMatches reports whether v matches the whole of a model pattern. A
// pattern Go's regexp cannot express is not checked.
func patternMatches(pattern, v string) bool {
	re, ok := patterns.Load(pattern)
	if !ok {
		compiled, err := regexp.Compile(`^(?:` + javaToRE2(pattern) + `)$`)
		if err != nil {
			compiled = nil
		}
		re, _ = patterns.LoadOrStore(pattern, compiled)
	}
	if r := re.(*regexp.Regexp); r != nil {
		return r.MatchString(v)
	}
	return true
}

// javaToRE2 rewrites the Java regular-expression syntax the models use
// into Go's: \p{Print} (printable ASCII), \uXXXX escapes and a surrogate
// pair range standing for the supplementary planes.
func javaToRE2(p string) string {
	p = strings.ReplaceAll(p, `\p{Print}`, `[\x20-\x7E]`)
	p = strings.ReplaceAll(p, `\uD800\uDC00-\uDBFF\uDFFF`, `\x{10000}-\x{10FFFF}`)
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+6 <= len(p) && p[i+1] == 'u' && isHex4(p[i+2:i+6]) {
			b.WriteString(`\x{` + p[i+2:i+6] + `}`)
			i += 5
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

func isHex4(s string) bool {
	if len(s) != 4 {
		return false
	}
	for i := 0; i < 4; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
