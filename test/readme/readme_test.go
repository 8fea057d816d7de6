package readme

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// readmeURL is the API's address as the README prints it.
const readmeURL = "http://127.0.0.1:8080"

func TestWalkthrough(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("the README's walkthrough uses curl, which is not installed")
	}
	text, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	steps := parse(string(text))
	if countCurl(steps) < 8 {
		t.Fatalf("found %d curl commands in the README, want the whole walkthrough", countCurl(steps))
	}
	r := startRunner(t)
	want, got := names{}, names{}
	for _, s := range steps {
		if s.command == "make run" {
			compareBanner(t, s, r, want, got)
			continue
		}
		args, err := words(s.command)
		if err != nil || len(args) == 0 || args[0] != "curl" {
			continue
		}
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, readmeURL, r.api)
		}
		out := runCurl(t, args, s, want, got)
		if d := diff(want.apply(s.output), got.apply(out)); d != "" {
			t.Errorf("README line %d: $ %s\n%s\n got:\n%s", s.line, s.command, d, out)
		}
	}
}

// runCurl runs one command; a GET that does not match yet is retried for a
// bounded while, since some outputs (the runner's events) arrive
// asynchronously.
func runCurl(t *testing.T, args []string, s step, want, got names) string {
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, err := exec.Command(args[0], args[1:]...).Output()
		if err != nil {
			t.Fatalf("README line %d: $ %s: %v", s.line, s.command, err)
		}
		if isMutation(args) || time.Now().After(deadline) ||
			diff(want.clone().apply(s.output), got.clone().apply(string(out))) == "" {
			return string(out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func isMutation(args []string) bool {
	for i, a := range args {
		if a == "-X" && i+1 < len(args) && args[i+1] != "GET" {
			return true
		}
		if a == "-d" || a == "--data" {
			return true
		}
	}
	return false
}

func countCurl(steps []step) int {
	n := 0
	for _, s := range steps {
		if strings.HasPrefix(s.command, "curl ") {
			n++
		}
	}
	return n
}

// step is a `$ command` of a README text block and the lines under it.
type step struct {
	line    int
	command string
	output  string
}

// parse returns the commands of the README's text blocks in order.
func parse(readme string) []step {
	var steps []step
	in := false
	var cur *step
	flush := func() {
		if cur != nil {
			cur.output = strings.TrimRight(cur.output, "\n")
			steps = append(steps, *cur)
			cur = nil
		}
	}
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "```"):
			flush()
			in = !in && l == "```text"
		case !in:
		case strings.HasPrefix(l, "$ "):
			flush()
			cmd := strings.TrimPrefix(l, "$ ")
			start := i + 1
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(lines[i])
			}
			cur = &step{line: start, command: cmd}
		case cur != nil:
			cur.output += l + "\n"
		}
	}
	flush()
	return steps
}

// words splits a command line as a POSIX shell would, for the quoting the
// README uses: single quotes, double quotes and backslashes.
func words(line string) ([]string, error) {
	var out []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				out = append(out, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				w.WriteByte(line[i])
			}
			if i == len(line) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		case c == '|' || c == ';' || c == '&' || c == '>' || c == '<':
			return nil, fmt.Errorf("shell operator %q is not supported", c)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, w.String())
	}
	return out, nil
}

// runner is a started lambdas/local.
type runner struct {
	api, ddb string
	banner   []string
}

func startRunner(t *testing.T) *runner {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "oncetable-local")
	build := exec.Command("go", "build", "-o", bin, "./lambdas/local")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./lambdas/local: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-api-addr", "127.0.0.1:0", "-dynamodb-addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	r := &runner{}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	timeout := time.After(30 * time.Second)
	for r.api == "" || !slices.ContainsFunc(r.banner, func(l string) bool { return strings.HasPrefix(l, "  curl ") }) {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the runner stopped before its banner:\n%s", strings.Join(r.banner, "\n"))
			}
			r.banner = append(r.banner, l)
			switch {
			case strings.HasPrefix(l, "  API:"):
				r.api = url.FindString(l)
			case strings.HasPrefix(l, "  DynamoDB:"):
				r.ddb = url.FindString(l)
			}
		case <-timeout:
			t.Fatalf("no banner from the runner in 30 s:\n%s", strings.Join(r.banner, "\n"))
		}
	}
	go func() {
		for range lines { // the request log; not compared
		}
	}()
	return r
}

// compareBanner checks the runner's banner against the README's `make run`
// output, whose first line is make's own.
func compareBanner(t *testing.T, s step, r *runner, want, got names) {
	lines := strings.Split(s.output, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "building the local runner") {
		t.Errorf("README line %d: the make run block should start with make's build line, got %q", s.line, lines[0])
		return
	}
	banner := strings.Join(r.banner, "\n")
	banner = strings.ReplaceAll(banner, r.api, readmeURL)
	banner = strings.ReplaceAll(banner, r.ddb, "http://127.0.0.1:8000")
	if w := strings.Join(lines[1:], "\n"); w != banner {
		t.Errorf("README line %d: the runner's banner differs\n want:\n%s\n got:\n%s", s.line, w, banner)
	}
}

// volatile are the values that differ from run to run, by name.
var volatile = []struct {
	name string
	re   *regexp.Regexp
}{
	{"time", regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z`)},
	{"id", regexp.MustCompile(`\b[a-z]{2,4}_[0-9a-z]{26}\b`)},
	{"request", regexp.MustCompile(`(?i)(X-Request-Id: )[0-9a-f]+`)},
	{"date", regexp.MustCompile(`(?m)^(Date: ).*$`)},
	{"length", regexp.MustCompile(`(?m)^(Content-Length: )\d+`)},
}

// names gives each volatile value seen in one transcript a name, the same
// name for the same value every time.
type names map[string]string

func (n names) clone() names { return maps.Clone(n) }

func (n names) apply(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for _, v := range volatile {
		s = v.re.ReplaceAllStringFunc(s, func(m string) string {
			sub := v.re.FindStringSubmatch(m)
			prefix := ""
			if len(sub) > 1 && sub[1] != "" {
				prefix, m = sub[1], m[len(sub[1]):]
			}
			if v.name == "date" || v.name == "length" || v.name == "request" {
				return prefix + "<" + v.name + ">"
			}
			key := v.name + "\x00" + m
			if t, err := time.Parse(time.RFC3339Nano, m); err == nil {
				key = v.name + "\x00" + t.UTC().Format(time.RFC3339Nano) // one instant, however many digits it is written with
			}
			if _, ok := n[key]; !ok {
				n[key] = fmt.Sprintf("<%s-%d>", v.name, len(n)+1)
			}
			return prefix + n[key]
		})
	}
	return strings.TrimRight(s, "\n")
}

// diff compares two outputs: a header block as a set of lines, a body as
// JSON when both parse, else as text. It returns "" when they match.
func diff(want, got string) string {
	wh, wb := split(want)
	gh, gb := split(got)
	if !slices.Equal(wh, gh) {
		return fmt.Sprintf(" headers differ:\n want %q\n got  %q", wh, gh)
	}
	var wj, gj any
	if json.Unmarshal([]byte(wb), &wj) == nil && json.Unmarshal([]byte(gb), &gj) == nil {
		if !reflect.DeepEqual(wj, gj) {
			return fmt.Sprintf(" JSON differs:\n want %s\n got  %s", wb, gb)
		}
		return ""
	}
	if wb != gb {
		return fmt.Sprintf(" output differs:\n want %q\n got  %q", wb, gb)
	}
	return ""
}

// split separates `curl -i` output into its sorted header lines and body.
func split(s string) ([]string, string) {
	if !strings.HasPrefix(s, "HTTP/") {
		return nil, s
	}
	head, body, _ := strings.Cut(s, "\n\n")
	lines := strings.Split(head, "\n")
	slices.Sort(lines[1:])
	return lines, body
}
