// Command model is `make model`: it writes oncetable's NoSQL Workbench data
// model (test/workbench) to -out.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/oncetable/oncetable/runtime/keys"
	"github.com/oncetable/oncetable/runtime/schema"
	"github.com/oncetable/oncetable/test/workbench"
)

func main() {
	out := flag.String("out", "tmp/model/oncetable.workbench.json", "file to write the model to")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "model:", err)
		os.Exit(1)
	}
	fmt.Println("model:", *out)
}

func run(out string) error {
	sample, err := workbench.Sample(context.Background())
	if err != nil {
		return err
	}
	m, err := workbench.Build("oncetable", schema.Default(), keys.Default, sample)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Format("Jan 2, 2006, 03:04 PM")
	m.ModelMetadata.DateCreated, m.ModelMetadata.DateLastModified = now, now
	if err := workbench.Validate(m); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(out, append(raw, '\n'), 0o644)
}
