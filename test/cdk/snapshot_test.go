package cdk

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden templates in testdata/")

// assetHash matches the content hashes of assets, which change with any
// byte of a bundled Lambda function.
var assetHash = regexp.MustCompile(`\b[0-9a-f]{64}\b`)

// normalize removes what changes without the infrastructure changing: asset
// hashes and the CDK version metadata.
func normalize(template map[string]any) map[string]any {
	raw, err := json.Marshal(template)
	if err != nil {
		panic(err)
	}
	raw = assetHash.ReplaceAll(raw, []byte("<asset-hash>"))
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(err)
	}
	if resources, ok := out["Resources"].(map[string]any); ok {
		for id, r := range resources {
			if r.(map[string]any)["Type"] == "AWS::CDK::Metadata" {
				delete(resources, id)
			}
		}
	}
	if conditions, ok := out["Conditions"].(map[string]any); ok {
		delete(conditions, "CDKMetadataAvailable")
		if len(conditions) == 0 {
			delete(out, "Conditions")
		}
	}
	return out
}

func TestSnapshots(t *testing.T) {
	golden := map[string]*synthesized{}
	for _, env := range envs {
		golden[env] = byEnv[env]
	}
	for env, s := range drStacks {
		golden[env+"-dr"] = s
	}
	for name, s := range keyStacks {
		golden[strings.TrimPrefix(name, "OnceTable-")] = s
	}
	for env, s := range golden {
		t.Run(env, func(t *testing.T) {
			got := normalize(s.json)
			path := filepath.Join("testdata", "OnceTable-"+env+".template.json")
			if *update {
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetIndent("", "  ")
				if err := enc.Encode(got); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (create it with: go test ./test/cdk -update)", err)
			}
			var want map[string]any
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if diff := templateDiff(want, got); diff != "" {
				t.Errorf("OnceTable-%s differs from %s (if intended, refresh with: go test ./test/cdk -update):\n%s", env, path, diff)
			}
		})
	}
}

// templateDiff lists added, removed and changed resources, and for a
// changed one each JSON path whose value differs, as want and got.
func templateDiff(want, got map[string]any) string {
	var b strings.Builder
	for _, section := range unionKeys(want, got) {
		w, g := want[section], got[section]
		if section != "Resources" {
			if !reflect.DeepEqual(w, g) {
				fmt.Fprintf(&b, "section %s changed:\n", section)
				pathDiff(&b, "  "+section, w, g)
			}
			continue
		}
		wr, _ := w.(map[string]any)
		gr, _ := g.(map[string]any)
		for _, id := range unionKeys(wr, gr) {
			wv, inW := wr[id]
			gv, inG := gr[id]
			switch {
			case !inW:
				fmt.Fprintf(&b, "added resource %s (%v)\n", id, gv.(map[string]any)["Type"])
			case !inG:
				fmt.Fprintf(&b, "removed resource %s (%v)\n", id, wv.(map[string]any)["Type"])
			case !reflect.DeepEqual(wv, gv):
				fmt.Fprintf(&b, "changed resource %s (%v):\n", id, gv.(map[string]any)["Type"])
				pathDiff(&b, "  ", wv, gv)
			}
		}
	}
	return b.String()
}

func pathDiff(b *strings.Builder, path string, want, got any) {
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		for _, k := range unionKeys(wm, gm) {
			pathDiff(b, path+"."+k, wm[k], gm[k])
		}
		return
	}
	wl, wok := want.([]any)
	gl, gok := got.([]any)
	if wok && gok && len(wl) == len(gl) {
		for i := range wl {
			pathDiff(b, fmt.Sprintf("%s[%d]", path, i), wl[i], gl[i])
		}
		return
	}
	if !reflect.DeepEqual(want, got) {
		fmt.Fprintf(b, "%s\n    want: %s\n    got:  %s\n", strings.TrimPrefix(path, "  ."), compact(want), compact(got))
	}
}

func compact(v any) string {
	if v == nil {
		return "(absent)"
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestTemplateDiffIsReadable(t *testing.T) {
	want := map[string]any{"Resources": map[string]any{
		"Table": map[string]any{"Type": "AWS::DynamoDB::GlobalTable", "Properties": map[string]any{"TimeToLiveSpecification": map[string]any{"AttributeName": "expiresAt"}}},
		"Gone":  map[string]any{"Type": "AWS::SNS::Topic"},
	}}
	got := map[string]any{"Resources": map[string]any{
		"Table": map[string]any{"Type": "AWS::DynamoDB::GlobalTable", "Properties": map[string]any{"TimeToLiveSpecification": map[string]any{"AttributeName": "ttl"}}},
		"New":   map[string]any{"Type": "AWS::KMS::Key"},
	}}
	wantDiff := `removed resource Gone (AWS::SNS::Topic)
added resource New (AWS::KMS::Key)
changed resource Table (AWS::DynamoDB::GlobalTable):
Properties.TimeToLiveSpecification.AttributeName
    want: "expiresAt"
    got:  "ttl"
`
	if diff := templateDiff(want, got); diff != wantDiff {
		t.Errorf("got diff:\n%s\nwant:\n%s", diff, wantDiff)
	}
}
