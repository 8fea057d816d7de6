package expr

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestMessagesGolden runs every invalid request in testdata/messages.jsonl and
// compares DynamoDB-worded messages with testdata/messages.golden, one
// reviewable catalog of what the engine answers. Refresh with -update.
func TestMessagesGolden(t *testing.T) {
	in, err := os.ReadFile("testdata/messages.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(in))
	for sc.Scan() {
		var c struct {
			Kind   string
			Expr   string
			Names  map[string]string
			Values map[string]attr.Value
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("bad line %s: %v", sc.Text(), err)
		}
		input := Input{Names: c.Names, Values: c.Values}
		switch c.Kind {
		case "Condition":
			input.Condition = &c.Expr
		case "Filter":
			input.Filter = &c.Expr
		case "Update":
			input.Update = &c.Expr
		case "KeyCondition":
			input.KeyCondition = &c.Expr
		case "Projection":
			input.Projection = &c.Expr
		default:
			t.Fatalf("unknown kind %q", c.Kind)
		}
		compiled, err := Compile(input)
		if err == nil && compiled.KeyCondition != nil {
			_, err = compiled.KeyCondition.Resolve(compiled.Names, compiled.Values, KeySchema{PartitionKey: "PK", PartitionType: attr.S, SortKey: "SK", SortType: attr.S})
		}
		msg := "(accepted)"
		if err != nil {
			msg = validationMessage(t, err)
		}
		fmt.Fprintf(&out, "%s %q\n\t%s\n", c.Kind, c.Expr, msg)
	}
	const golden = "testdata/messages.golden"
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestMessagesGolden -update)", err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("messages differ from %s (rerun with -update after checking)\n got:\n%s\nwant:\n%s", golden, out.Bytes(), want)
	}
}
