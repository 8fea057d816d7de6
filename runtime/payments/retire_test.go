package payments_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMigrationsRetireByDeletingOneFile builds the runtime and every Lambda
// main with one migration's file deleted (go build -overlay), for each
// migration the flows carry: retiring it deletes that file and changes no
// flow. The tests of the migration itself go with it (those that name
// store.StaleWrites or run stage both).
func TestMigrationsRetireByDeletingOneFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module twice")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		migration string
		file      string
	}{
		{"orders-by-status-v2 (stage both: the fenced dual writer)", "runtime/store/orderwriter_migration.go"},
		{"idempotency records in partitions of their own (the check of their former place)", "runtime/payments/legacyrecords.go"},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			path := filepath.Join(root, tc.file)
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("%s: %v", tc.migration, err)
			}
			overlay, err := json.Marshal(map[string]map[string]string{"Replace": {path: ""}})
			if err != nil {
				t.Fatal(err)
			}
			ov := filepath.Join(t.TempDir(), "overlay.json")
			if err := os.WriteFile(ov, overlay, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"build", "-overlay", ov, "./runtime/...", "./lambdas/..."},
			} {
				cmd := exec.Command("go", args...)
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("without %s (%s): go %v: %v\n%s", tc.file, tc.migration, args[0], err, out)
				}
			}
		})
	}
}
