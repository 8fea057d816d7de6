package ddblocal

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/oncetable/oncetable/runtime/ddblocal/attr"
)

// keepReleasedEnv makes TestPoisonModeCatchesAKeptReleasedMap run, in a
// child process, the buggy flow it guards against.
const keepReleasedEnv = "DDBLOCAL_TEST_KEEP_RELEASED_MAP"

// keepReleasedMap is what a change that keeps a pooled map would do: a
// request item is decoded into a pooled map, stored and released (as
// PutItem does), while a keeper (a stream capturing the map instead of
// the stored row, say) holds on to it and later writes it to a response.
func keepReleasedMap() []byte {
	r := jsonReader{src: []byte(`{"PK":{"S":"A"},"n":{"N":"1"}}`)}
	it, ok := r.reusedItem()
	if !ok {
		panic("bad test item")
	}
	newEntry(nil, it)
	kept := it
	releaseItem(it)
	return encodeItem(nil, kept)
}

// TestPoisonModeCatchesAKeptReleasedMap proves the ownership rule of pooled
// item maps is enforced: built with -tags ddblocal_poison, as make test
// builds, the flow above fails its test process loudly. Without the tag it
// passes unnoticed, which is why the tag exists.
func TestPoisonModeCatchesAKeptReleasedMap(t *testing.T) {
	if os.Getenv(keepReleasedEnv) == "1" {
		t.Logf("encoded a kept map as %s", keepReleasedMap())
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPoisonModeCatchesAKeptReleasedMap$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), keepReleasedEnv+"=1")
	out, err := cmd.CombinedOutput()
	if !poisonReleased {
		if err != nil {
			t.Fatalf("without ddblocal_poison the child failed: %v\n%s", err, out)
		}
		t.Skip("built without -tags ddblocal_poison: the kept map went unnoticed, as expected; make test uses the tag")
	}
	if err == nil {
		t.Fatalf("poison mode: the child kept a released map and passed; output:\n%s", out)
	}
	if want := "response encoding of an item map after releaseItem"; !strings.Contains(string(out), want) {
		t.Fatalf("poison mode: child failed without %q:\n%s", want, out)
	}
}

func TestPoisonModeChecks(t *testing.T) {
	if !poisonReleased {
		t.Skip("built without -tags ddblocal_poison")
	}
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if _, ok := recover().(errReleasedItem); !ok {
				t.Errorf("%s: did not panic with errReleasedItem", name)
			}
		}()
		f()
	}
	it, _ := (&jsonReader{src: []byte(`{"a":{"S":"x"}}`)}).reusedItem()
	releaseItem(it)
	if len(it) != 1 {
		t.Errorf("a released map holds %d attributes, want only the poison", len(it))
	}
	mustPanic("second release", func() { releaseItem(it) })
	mustPanic("storing", func() { newEntry(nil, it) })
	mustPanic("response encoding", func() { encodeItem(nil, it) })
	ix := &index{name: "gsi", keys: keySchema{hash: keyAttr{"a", attr.S}}.withAttrs()}
	mustPanic("index maintenance", func() { _, _ = ix.rowKey(it, nil) })
	mustBeLive(nil, "nil item") // an absent item is not a released one
}
