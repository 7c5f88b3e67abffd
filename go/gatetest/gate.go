// Package gatetest runs assigncheck's gate on a Go balancer from a go test, and fails the test with the bugs
// it confirmed and their reproducers.
//
// The balancer is a main package whose main serves it (franzgo.Serve, saramabalance.Serve, kafkago.Serve).
// Gate builds it, runs `assigncheck gate --target cmd2:PROGRAM`, and reads the gate's report.json:
//
//	func TestMyBalancerPassesTheGate(t *testing.T) {
//		gatetest.Gate(t, "./gate", gatetest.Promises("balance=optimal,stickiness=max_retained"))
//	}
//
// assigncheck is found as $ASSIGNCHECK (a path to the program) or on PATH. The program and the reports go to
// ReportDir, by default a folder named for the test under the system's temporary folder, kept after the test
// so that `assigncheck replay REPRODUCER` replays a reported bug; each run replaces it.
package gatetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Option is one setting of a gate run.
type Option func(*config)

type config struct {
	promises  string
	args      []string
	stages    []string
	profile   string
	seed      *int
	reportDir string
	flags     []string
}

// Promises is what the balancer promises beyond H1-H8, in the gate's --promises syntax, e.g.
// "balance=optimal,stickiness=max_retained,fixpoint".
func Promises(text string) Option { return func(c *config) { c.promises = text } }

// Args are the program's own arguments, after the program in the target.
func Args(args ...string) Option { return func(c *config) { c.args = args } }

// Stages runs only these of the gate's stages (properties, proofs, fuzz, campaign, scale, live); every
// installed one by default.
func Stages(stages ...string) Option { return func(c *config) { c.stages = stages } }

// Profile is the gate's profile, "quick" (the default) or "full".
func Profile(name string) Option { return func(c *config) { c.profile = name } }

// Seed is the gate's --seed.
func Seed(seed int) Option { return func(c *config) { c.seed = &seed } }

// ReportDir is where the program is built and the reports and reproducers are written (replaced on each run).
func ReportDir(dir string) Option { return func(c *config) { c.reportDir = dir } }

// Flags are more of the gate's command-line flags, passed as they are.
func Flags(flags ...string) Option { return func(c *config) { c.flags = flags } }

// Report is what one gate run found, read from its report.json (docs/REPORTS.md).
type Report struct {
	// Dir is the report folder: report.json, summary.md, report.html, junit.xml, reproducers/.
	Dir string
	// OK is the gate's verdict: no confirmed bug, and every stage ran.
	OK bool
	// Counts is the number of bugs of each status: confirmed, unconfirmed, unreachable.
	Counts map[string]int
	// Bugs are every bug, of every status; Confirmed lists those that fail the gate.
	Bugs []Bug
	// Errors are the stages that could not run, as "stage: why".
	Errors []string
	// Output is what the gate printed.
	Output string
}

// Bug is one bug of the report: its invariant, what broke, and the reproducer that shows it.
type Bug struct {
	Invariant string   `json:"invariant"`
	Status    string   `json:"status"`
	Message   string   `json:"message"`
	Why       string   `json:"why"`
	Stages    []string `json:"stages"`
	// Reproducer is the reproducer file's path: `assigncheck replay REPRODUCER` runs the program on it again.
	Reproducer   string `json:"reproducer"`
	Consequences []Bug  `json:"consequences"`
}

// Confirmed is the bugs that fail the gate: each replayed from its reproducer alone, in a fresh process.
func (r *Report) Confirmed() []Bug {
	var out []Bug
	for _, b := range r.Bugs {
		if b.Status == "confirmed" {
			out = append(out, b)
		}
	}
	return out
}

// Gate builds the main package pkg (as `go build` names it, from the test's folder), runs the gate on it, and
// fails t with every confirmed bug, its reproducer's path and the command that replays it, and with every stage
// that could not run.
func Gate(t testing.TB, pkg string, options ...Option) *Report {
	t.Helper()
	report := Run(t, pkg, options...)
	for _, e := range report.Errors {
		t.Errorf("gate stage could not run: %s", e)
	}
	for _, b := range report.Confirmed() {
		t.Errorf("%s", b.describe())
	}
	if !report.OK {
		t.Errorf("the gate failed %s (reports in %s)", pkg, report.Dir)
	}
	return report
}

// describe is the bug as a test failure says it.
func (b Bug) describe() string {
	var s strings.Builder
	fmt.Fprintf(&s, "bug %s (found by %s): %s\n\treproducer: %s\n\treplay: assigncheck replay %s", b.Invariant,
		strings.Join(b.Stages, ", "), b.Message, b.Reproducer, shellQuote(b.Reproducer))
	for _, c := range b.Consequences {
		fmt.Fprintf(&s, "\n\tand, on the same partitions, %s: %s", c.Invariant, c.Message)
	}
	return s.String()
}

// Run builds pkg and runs the gate on it as Gate does, and returns what it found without judging it: for a
// test that expects bugs. It fails t only when the gate cannot run at all (no assigncheck, a build that
// fails, a flag the gate refuses).
func Run(t testing.TB, pkg string, options ...Option) *Report {
	t.Helper()
	c := config{profile: "quick"}
	for _, option := range options {
		option(&c)
	}
	assigncheck, err := findAssigncheck()
	if err != nil {
		t.Fatal(err)
	}
	dir := c.reportDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "assigncheck-gate", safeName(t.Name()))
	}
	if dir, err = filepath.Abs(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatalf("gatetest: clearing the report folder: %v", err)
	}
	program := filepath.Join(dir, "bin", filepath.Base(dir))
	if out, err := exec.Command("go", "build", "-o", program, pkg).CombinedOutput(); err != nil {
		t.Fatalf("gatetest: go build %s: %v\n%s", pkg, err, out)
	}
	target := "cmd2:" + shellQuote(program)
	for _, arg := range c.args {
		target += " " + shellQuote(arg)
	}
	args := []string{"gate", "--profile", c.profile, "--target", target, "--report-dir", filepath.Join(dir, "report")}
	if c.promises != "" {
		args = append(args, "--promises", c.promises)
	}
	if len(c.stages) > 0 {
		args = append(args, "--stages", strings.Join(c.stages, ","))
	}
	if c.seed != nil {
		args = append(args, "--seed", fmt.Sprint(*c.seed))
	}
	args = append(args, c.flags...)
	var output bytes.Buffer
	gate := exec.Command(assigncheck, args...)
	gate.Dir = dir // the reproducers' paths are relative to it
	gate.Stdout, gate.Stderr = &output, &output
	err = gate.Run()
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || exit.ExitCode() != 1) {
		t.Fatalf("gatetest: assigncheck %s: %v\n%s", strings.Join(args, " "), err, output.String())
	}
	report, err := readReport(filepath.Join(dir, "report"), dir)
	if err != nil {
		t.Fatalf("gatetest: %v\n%s", err, output.String())
	}
	report.Output = output.String()
	return report
}

// findAssigncheck is $ASSIGNCHECK, or assigncheck on PATH.
func findAssigncheck() (string, error) {
	if path := os.Getenv("ASSIGNCHECK"); path != "" {
		return path, nil
	}
	path, err := exec.LookPath("assigncheck")
	if err != nil {
		return "", errors.New("gatetest: assigncheck not found: put it on PATH or set ASSIGNCHECK to its path")
	}
	return path, nil
}

// readReport reads the gate's report.json; relative reproducer paths are taken from base, where the gate ran.
func readReport(dir, base string) (*Report, error) {
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return nil, fmt.Errorf("the gate wrote no report: %v", err)
	}
	var doc struct {
		OK     bool           `json:"ok"`
		Counts map[string]int `json:"counts"`
		Bugs   []Bug          `json:"bugs"`
		Stages []struct {
			Stage  string  `json:"stage"`
			Target string  `json:"target"`
			Error  *string `json:"error"`
		} `json:"stages"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "report.json"), err)
	}
	report := &Report{Dir: dir, OK: doc.OK, Counts: doc.Counts, Bugs: doc.Bugs}
	for i := range report.Bugs {
		absolute(&report.Bugs[i], base)
	}
	for _, s := range doc.Stages {
		if s.Error != nil {
			report.Errors = append(report.Errors, s.Stage+": "+*s.Error)
		}
	}
	return report, nil
}

func absolute(b *Bug, base string) {
	if b.Reproducer != "" && !filepath.IsAbs(b.Reproducer) {
		b.Reproducer = filepath.Join(base, b.Reproducer)
	}
	for i := range b.Consequences {
		absolute(&b.Consequences[i], base)
	}
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// safeName is a test's name as one folder name.
func safeName(name string) string {
	return strings.Trim(unsafeChars.ReplaceAllString(name, "_"), "_")
}

// shellQuote quotes s for the gate's target, which it splits as a shell would.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == '=' || r == ':' || r == ',' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
