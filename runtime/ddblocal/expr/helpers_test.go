package expr

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// item decodes DynamoDB wire JSON, e.g. {"a":{"N":"1"}}.
func item(t *testing.T, js string) attr.Item {
	t.Helper()
	if js == "" {
		return nil
	}
	var it attr.Item
	if err := json.Unmarshal([]byte(js), &it); err != nil {
		t.Fatalf("bad fixture %s: %v", js, err)
	}
	return it
}

// values decodes {":v":{"S":"x"}} into Values.
func values(t *testing.T, js string) Values {
	t.Helper()
	if js == "" {
		return nil
	}
	var m map[string]attr.Value
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatalf("bad fixture %s: %v", js, err)
	}
	return Values(m)
}

func itemJSON(t *testing.T, it attr.Item) string {
	t.Helper()
	b, err := json.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameItem compares items by DynamoDB equality, printing both on failure.
func sameItem(t *testing.T, got attr.Item, want string) {
	t.Helper()
	w := item(t, want)
	if w == nil {
		w = attr.Item{}
	}
	if !attr.EqualItems(got, w) {
		t.Errorf("item\n got %s\nwant %s", itemJSON(t, got), itemJSON(t, w))
	}
}

func validationMessage(t *testing.T, err error) string {
	t.Helper()
	var ve *attr.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v (%T) is not a *attr.ValidationError", err, err)
	}
	return ve.Message
}

func ptr(s string) *string { return &s }
