package localrun_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/httpapi"
	"github.com/oncetable/oncetable/runtime/localrun"
)

// TestEmptyCollectionsAreArrays calls every GET route whose answer holds a
// list, on a fresh table where each list is empty (a user with no ledger,
// orders or addresses; an order with no payments; no orders by status, no
// unprocessed payments, no featured products), and the runner's event list
// before any event: every list is [] in JSON, never null or absent, so a
// client can range over it without a special case.
func TestEmptyCollectionsAreArrays(t *testing.T) {
	s, _ := start(t, "")
	defer s.Shutdown(t.Context())
	for _, c := range []struct{ path, body string }{
		{"/users", `{"userId":"nobody","name":"Nobody","email":"nobody@example.com"}`},
		{"/users/nobody/orders", `{"orderId":"o-empty","currency":"EUR","items":[{"productId":"mug","quantity":1,"unitPrice":100}]}`},
	} {
		if resp, body := call(t, "POST", s.APIURL+c.path, c.body, "Idempotency-Key", "setup"); resp.StatusCode != 201 {
			t.Fatalf("POST %s: %d %s", c.path, resp.StatusCode, body)
		}
	}
	ids := strings.NewReplacer("{userId}", "nobody", "{orderId}", "o-empty", "{productId}", "mug")
	listing := 0
	for _, op := range httpapi.Operations() {
		if op.Method != "GET" || !holdsList(reflect.TypeOf(op.Response)) {
			continue
		}
		path := ids.Replace(op.Path)
		if strings.Contains(path, "{") {
			// A read of one resource by an id this empty account does not
			// have (a ledger entry, a refund): it holds lists, but is no
			// collection, and answers 404 here.
			continue
		}
		listing++
		url := s.APIURL + path + query(op.Query)
		resp, body := call(t, "GET", url, "")
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d %s", url, resp.StatusCode, body)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		for _, p := range nullLists(reflect.TypeOf(op.Response), v, op.Name) {
			t.Errorf("GET %s: %s is not a JSON array: %s", url, p, body)
		}
	}
	if listing < 6 {
		t.Errorf("walked %d list-returning routes, want every one (at least 6)", listing)
	}
	resp, body := call(t, "GET", s.APIURL+localrun.EventsPath, "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"events":[]`) {
		t.Errorf("GET %s before any event: %d %s, want {\"events\":[]}", localrun.EventsPath, resp.StatusCode, body)
	}
}

// query fills each required parameter with its first allowed value.
func query(params []httpapi.Param) string {
	var q []string
	for _, p := range params {
		if p.Required && len(p.Enum) > 0 {
			q = append(q, p.Name+"="+p.Enum[0])
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + strings.Join(q, "&")
}

// holdsList reports whether a value of type t marshals a list anywhere.
func holdsList(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return t.Elem().Kind() != reflect.Uint8
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsList(f.Type) {
				return true
			}
		}
	}
	return false
}

// nullLists returns the paths in v, the JSON of a value of type t, where
// a list field is null or absent (unless it is omitempty).
func nullLists(t reflect.Type, v any, path string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
		list, ok := v.([]any)
		if !ok {
			return []string{path}
		}
		for _, e := range list {
			out = append(out, nullLists(t.Elem(), e, path+"[]")...)
		}
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				out = append(out, nullLists(f.Type, v, path)...)
				continue
			}
			if name == "" {
				name = f.Name
			}
			fv, present := obj[name]
			if !present && strings.Contains(opts, "omitempty") {
				continue
			}
			out = append(out, nullLists(f.Type, fv, path+"."+name)...)
		}
	}
	return out
}
