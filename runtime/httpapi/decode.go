package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"reflect"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/oncetable/oncetable/runtime/metadata"
)

// MaxBodyBytes is the largest request body accepted.
const MaxBodyBytes = 64 << 10

// header returns a request header; API Gateway v2 lower-cases names, the
// lookup tolerates any case.
func header(req *events.APIGatewayV2HTTPRequest, name string) string {
	if v, ok := req.Headers[strings.ToLower(name)]; ok {
		return v
	}
	for k, v := range req.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// headerSent returns a request header and whether it was sent at all.
func headerSent(req *events.APIGatewayV2HTTPRequest, name string) (string, bool) {
	if v, ok := req.Headers[strings.ToLower(name)]; ok {
		return v, true
	}
	for k, v := range req.Headers {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// rawBody returns the request body, decoded from base64 when API Gateway
// encoded it, and enforces MaxBodyBytes.
func rawBody(req *events.APIGatewayV2HTTPRequest) ([]byte, error) {
	body := []byte(req.Body)
	if req.IsBase64Encoded {
		if base64.StdEncoding.DecodedLen(len(req.Body)) > MaxBodyBytes+3 {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, MaxBodyBytes)
		}
		var err error
		if body, err = base64.StdEncoding.DecodeString(req.Body); err != nil {
			return nil, fmt.Errorf("%w: body is not valid base64", ErrBadRequest)
		}
	}
	if len(body) > MaxBodyBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrBodyTooLarge, len(body), MaxBodyBytes)
	}
	return body, nil
}

// checkContentType requires application/json (parameters such as charset
// allowed) whenever there is a body.
func checkContentType(req *events.APIGatewayV2HTTPRequest, body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	ct := header(req, "Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return fmt.Errorf("%w: Content-Type %q, want application/json", ErrUnsupportedMedia, ct)
	}
	return nil
}

// decodeStrict decodes a JSON object body into v, rejecting duplicate keys
// (at any depth), unknown fields, trailing data and non-object bodies.
func decodeStrict(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return fmt.Errorf("%w: a JSON object body is required", ErrBadRequest)
	}
	if err := checkDuplicates(body, reflect.TypeOf(v)); err != nil {
		return err
	}
	if err := checkExactNames(body, reflect.TypeOf(v), ""); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		var se *json.SyntaxError
		var me *metadata.Error
		switch {
		case errors.As(err, &me):
			return err
		case errors.As(err, &ute):
			return atParam(ute.Field, fmt.Errorf("%w: field %q: expected %s, got JSON %s", ErrBadRequest, ute.Field, ute.Type, ute.Value))
		case errors.As(err, &se):
			return fmt.Errorf("%w: malformed JSON at byte %d: %v", ErrBadRequest, se.Offset, se)
		case strings.HasPrefix(err.Error(), "json: unknown field"):
			return fmt.Errorf("%w: %s", ErrBadRequest, strings.TrimPrefix(err.Error(), "json: "))
		default:
			return fmt.Errorf("%w: %v", ErrBadRequest, err)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: trailing data after the JSON object", ErrBadRequest)
	}
	return nil
}

// checkDuplicates walks the JSON token stream and fails on the first object
// that names a key twice; encoding/json would silently keep the last one.
// t is the type the body decodes into: an object decoded into a map (the
// metadata) is left to the map type's own decoding, which tells keys apart
// by case as a map does.
func checkDuplicates(body []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	first, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%w: malformed JSON: %v", ErrBadRequest, err)
	}
	if d, ok := first.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("%w: body must be a JSON object", ErrBadRequest)
	}
	return walkObject(dec, "", t)
}

// fieldType is the type of the member named key of an object decoded into
// t, nil when t is no struct or has no such field.
func fieldType(t reflect.Type, key string) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == key {
			return f.Type
		}
	}
	return nil
}

func walkObject(dec *json.Decoder, path string, typ reflect.Type) error {
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%w: malformed JSON: %v", ErrBadRequest, err)
		}
		key, _ := t.(string)
		// encoding/json matches field names case-insensitively (with
		// Unicode folding), so "Amount" after "amount" would replace it.
		folded := strings.ToLower(strings.ToUpper(key))
		if seen[folded] {
			return atParam(path+key, fmt.Errorf("%w: duplicate key %q", ErrBadRequest, path+key))
		}
		seen[folded] = true
		if err := walkValue(dec, path+key+".", fieldType(typ, key)); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	if err != nil {
		return fmt.Errorf("%w: malformed JSON: %v", ErrBadRequest, err)
	}
	return nil
}

func walkValue(dec *json.Decoder, path string, typ reflect.Type) error {
	if typ != nil && typ.Kind() == reflect.Map {
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fmt.Errorf("%w: malformed JSON: %v", ErrBadRequest, err)
		}
		return nil
	}
	t, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%w: malformed JSON: %v", ErrBadRequest, err)
	}
	var elem reflect.Type
	if typ != nil && typ.Kind() == reflect.Slice {
		elem = typ.Elem()
	}
	switch t {
	case json.Delim('{'):
		return walkObject(dec, path, typ)
	case json.Delim('['):
		for dec.More() {
			if err := walkValue(dec, path, elem); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return fmt.Errorf("%w: malformed JSON: %v", ErrBadRequest, err)
		}
	}
	return nil
}

// checkExactNames rejects object keys that match a field only when case is
// ignored ("AMOUNT" for "amount"): encoding/json would accept them, and a
// strict API names every field one way.
func checkExactNames(data []byte, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil {
			return nil // not an object: the decoder reports the type error
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fields[name] = f.Type
		}
		for k, raw := range obj {
			ft, ok := fields[k]
			if !ok {
				return atParam(path+k, fmt.Errorf("%w: unknown field %q", ErrBadRequest, path+k))
			}
			if err := checkExactNames(raw, ft, path+k+"."); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // json.RawMessage and []byte hold any value
		}
		var arr []json.RawMessage
		if json.Unmarshal(data, &arr) != nil {
			return nil
		}
		for i, raw := range arr {
			if err := checkExactNames(raw, t.Elem(), fmt.Sprintf("%s[%d].", strings.TrimSuffix(path, "."), i)); err != nil {
				return err
			}
		}
	}
	return nil
}
