// Command benchab renders the side-by-side regression check of two versions
// of the engine (docs/reports/engine-regression.md) from the `go test -bench`
// output of each, as test/enginebench/regression.sh collects it.
package main

import (
	"bytes"
	"flag"
	"log"
	"os"
	"strings"
	"time"

	"github.com/oncetable/oncetable/test/enginebench"
)

func main() {
	beforeFile := flag.String("before", "", "benchmark output of the version before")
	afterFile := flag.String("after", "", "benchmark output of the version after")
	beforeName := flag.String("before-name", "before", "what the version before is")
	afterName := flag.String("after-name", "after", "what the version after is")
	command := flag.String("command", "test/enginebench/regression.sh", "the command that produced the figures")
	rounds := flag.Int("rounds", 0, "rounds run")
	loads := flag.String("loads", "", "load averages seen during the run, separated by ';'")
	out := flag.String("o", "", "write the page here (default standard output)")
	flag.Parse()
	before := parse(*beforeFile)
	after := parse(*afterFile)
	var loadList []string
	for _, l := range strings.Split(*loads, ";") {
		if l = strings.TrimSpace(l); l != "" {
			loadList = append(loadList, l)
		}
	}
	var buf bytes.Buffer
	enginebench.WriteRegression(&buf, before, after, enginebench.RegressionRun{
		Before: *beforeName, After: *afterName, Command: *command, Rounds: *rounds,
		Loads: loadList, When: time.Now().UTC().Format("2006-01-02 15:04 MST"),
	})
	if *out == "" {
		_, _ = os.Stdout.Write(buf.Bytes())
		return
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

func parse(path string) *enginebench.Samples {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	s, err := enginebench.ParseBench(f)
	if err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	return s
}
