package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/metadata"
	"github.com/oncetable/oncetable/runtime/money"
)

// obj is a JSON object of the document; encoding/json writes its keys
// sorted, so the document is byte-for-byte reproducible.
type obj = map[string]any

// idPattern is keys.ValidateID as far as an ECMA-262 pattern can say it:
// no '#', '/', white space, control characters, the common invisible and
// bidirectional control characters, or private use; unassigned code points
// and NFC are stated in the description.
const idPattern = `^[^#/\s\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ue000-\uf8ff]+$`

// productIDPattern is keys.ValidateProductID: a catalogue id is ASCII.
const productIDPattern = `^[A-Za-z0-9._:~-]+$`

var (
	rawMessage   = reflect.TypeFor[json.RawMessage]()
	metadataType = reflect.TypeFor[metadata.Metadata]()
)

// metadataSchema is the bounds of metadata.Metadata, one component for
// requests and responses.
func (s schemas) metadataSchema() obj {
	return s.named("Metadata", func() obj {
		return obj{"type": "object", "maxProperties": metadata.MaxKeys,
			"propertyNames":        obj{"minLength": 1, "maxLength": metadata.MaxKeyLength, "pattern": `^[^\[\]\u0000-\u001f\u007f-\u009f]+$`},
			"additionalProperties": obj{"type": "string", "maxLength": metadata.MaxValueLength},
			"description": fmt.Sprintf("the client's key-value pairs: at most %d keys of 1..%d characters without '[', ']' or control characters, values of at most %d characters; absent when there are none",
				metadata.MaxKeys, metadata.MaxKeyLength, metadata.MaxValueLength)}
	})
}

// schemas collects the component schemas, by name.
type schemas map[string]any

// ref registers t as a component and returns a reference to it.
func (s schemas) ref(t reflect.Type) obj {
	name := schemaName(t)
	if _, ok := s[name]; !ok {
		s[name] = nil // placeholder: breaks cycles
		s[name] = s.object(t)
	}
	return obj{"$ref": "#/components/schemas/" + name}
}

// named registers a component that no Go type stands for.
func (s schemas) named(name string, build func() obj) obj {
	if _, ok := s[name]; !ok {
		s[name] = build()
	}
	return obj{"$ref": "#/components/schemas/" + name}
}

// schemaName is the Go type's name; Page[store.LedgerEntry] is
// LedgerEntryPage.
func schemaName(t reflect.Type) string {
	name := t.Name()
	if base, arg, ok := strings.Cut(name, "["); ok {
		arg = strings.TrimSuffix(arg, "]")
		return arg[strings.LastIndex(arg, ".")+1:] + base
	}
	return name
}

// object describes a struct type. A request type (httpapi.Limited) takes
// its constraints and required fields from its Limits and allows no other
// field (the handler refuses unknown ones). A response type's fields are
// required unless omitempty, and nullable when its zero value marshals
// them as null (a custom MarshalJSON, such as store.Page's nextCursor).
func (s schemas) object(t reflect.Type) obj {
	limited, isRequest := reflect.Zero(t).Interface().(httpapi.Limited)
	var limits map[string]httpapi.Limit
	if isRequest {
		limits = limited.Limits()
	}
	zero := zeroFields(t)
	props, required := obj{}, []string{}
	for _, f := range fields(t) {
		var p obj
		if isRequest {
			l := limits[f.name]
			p = s.requestField(f.typ, l)
			if l.Required {
				required = append(required, f.name)
			}
		} else {
			p = s.responseField(f)
			v, present := zero[f.name]
			if present && string(v) == "null" && f.typ.Kind() != reflect.Slice {
				p = obj{"anyOf": []any{p, obj{"type": "null"}}}
			}
			if present || !f.omitempty {
				required = append(required, f.name)
			}
		}
		props[f.name] = p
	}
	o := obj{"type": "object", "properties": props, "required": required}
	if isRequest {
		o["additionalProperties"] = false
	}
	return o
}

type field struct {
	name      string
	typ       reflect.Type
	omitempty bool
}

// fields lists the JSON fields of a struct, flattening embedded structs.
func fields(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, fields(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, field{name: name, typ: f.Type, omitempty: strings.Contains(opts, "omitempty")})
	}
	return out
}

// zeroFields is the zero value of t as the API marshals it.
func zeroFields(t reflect.Type) map[string]json.RawMessage {
	b, err := json.Marshal(reflect.Zero(t).Interface())
	if err != nil {
		panic(fmt.Sprintf("openapi: marshal zero %v: %v", t, err))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		panic(fmt.Sprintf("openapi: zero %v is not an object: %s", t, b))
	}
	return m
}

func (s schemas) responseField(f field) obj {
	t := f.typ
	switch {
	case t.Kind() == reflect.String && strings.HasSuffix(f.name, "At"):
		return obj{"type": "string", "format": "date-time"}
	case t.Kind() == reflect.Slice:
		return obj{"type": "array", "items": s.elem(t.Elem())}
	}
	return s.elem(t)
}

func (s schemas) elem(t reflect.Type) obj {
	if t == metadataType {
		return s.metadataSchema()
	}
	switch t.Kind() {
	case reflect.Pointer: // an omitempty extension member of Problem
		return s.elem(t.Elem())
	case reflect.String:
		return obj{"type": "string"}
	case reflect.Bool:
		return obj{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return obj{"type": "integer", "format": "int64"}
	case reflect.Struct:
		return s.ref(t)
	}
	panic(fmt.Sprintf("openapi: no schema for %v", t))
}

// requestField applies a field's httpapi.Limit to its schema.
func (s schemas) requestField(t reflect.Type, l httpapi.Limit) obj {
	switch {
	case l.Metadata:
		return s.metadataSchema()
	case l.Amount:
		return obj{"type": "integer", "minimum": 1, "maximum": money.MaxMinor, "description": "minor units (2500 EUR is 25.00 EUR)"}
	case t == rawMessage:
		return obj{"type": "integer", "minimum": l.Min, "maximum": l.Max}
	case l.Currency:
		return s.named("Currency", func() obj {
			codes := []string{}
			for _, c := range money.Currencies() {
				codes = append(codes, string(c))
			}
			return obj{"type": "string", "enum": codes, "description": "ISO 4217 code"}
		})
	case l.ID && l.ProductID:
		return productIDSchema()
	case l.ID:
		return idSchema()
	case t.Kind() == reflect.Slice:
		return obj{"type": "array", "items": s.ref(t.Elem()), "minItems": l.MinItems, "maxItems": l.MaxItems}
	case t.Kind() == reflect.Bool:
		return obj{"type": "boolean"}
	case t.Kind() == reflect.String:
		o := obj{"type": "string", "maxLength": l.MaxBytes,
			"description": fmt.Sprintf("at most %d bytes of UTF-8, no control characters", l.MaxBytes)}
		if l.Required {
			o["minLength"] = 1
		}
		if l.Pattern != "" {
			o["pattern"] = l.Pattern
		}
		if len(l.Enum) > 0 {
			o["enum"] = l.Enum
			o["description"] = fmt.Sprintf("one of %d codes", len(l.Enum))
		}
		if l.Format != "" {
			o["format"] = l.Format
		}
		return o
	}
	panic(fmt.Sprintf("openapi: no request schema for %v", t))
}

func idSchema() obj {
	return obj{"type": "string", "minLength": 1, "maxLength": keys.MaxIDLength, "pattern": idPattern,
		"description": fmt.Sprintf("at most %d bytes, normalised to NFC before use; no '#', '/', white space, control, invisible (format, default-ignorable, variation selector), bidirectional control, unassigned or private-use characters", keys.MaxIDLength)}
}

func productIDSchema() obj {
	return obj{"type": "string", "minLength": 1, "maxLength": keys.MaxIDLength, "pattern": productIDPattern,
		"description": fmt.Sprintf("a catalogue id: 1..%d ASCII letters, digits and -_.:~", keys.MaxIDLength)}
}
