package gatetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Gate says instead of failing the test; Fatal stops the call as
// testing's does, by unwinding it.
type recorder struct {
	testing.TB
	said []string
}

type stopped struct{}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.said = append(r.said, sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(stopped{})
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", strings.TrimSuffix(sprintln(args...), "\n")) }

// run calls gate with r, and returns what it said.
func (r *recorder) run(gate func()) (said []string) {
	defer func() {
		if v := recover(); v != nil && v != (stopped{}) {
			panic(v)
		}
		said = r.said
	}()
	gate()
	return
}

func TestWithoutAssigncheckTheTestStopsWithOneLineSayingWhere(t *testing.T) {
	t.Setenv("ASSIGNCHECK", "")
	t.Setenv("PATH", t.TempDir())
	r := &recorder{TB: t}
	said := r.run(func() { Gate(r, "./nothing") })
	if len(said) != 1 || said[0] != "gatetest: assigncheck not found: put it on PATH or set ASSIGNCHECK to its path" {
		t.Errorf("said %q", said)
	}
}

func TestABuildThatFailsStopsTheTestWithGosOutput(t *testing.T) {
	t.Setenv("ASSIGNCHECK", "/bin/true")
	r := &recorder{TB: t}
	said := r.run(func() { Gate(r, "./no-such-package", ReportDir(t.TempDir())) })
	if len(said) != 1 || !strings.HasPrefix(said[0], "gatetest: go build ./no-such-package:") {
		t.Errorf("said %q", said)
	}
}

const reportJSON = `{"ok": false, "counts": {"confirmed": 1, "unconfirmed": 0, "unreachable": 1},
 "bugs": [
  {"invariant": "H5", "status": "confirmed", "message": "1 partition(s) of subscribed topics are unassigned: t-2",
   "stages": ["properties"], "reproducer": "report/reproducers/h5.json",
   "consequences": [{"invariant": "balance.perfect", "status": "confirmed", "message": "counts 1, 0",
                     "reproducer": "report/reproducers/balance.json"}]},
  {"invariant": "H1", "status": "unreachable", "message": "a negative claim", "stages": ["fuzz"],
   "reproducer": "/elsewhere/h1.json"}],
 "stages": [{"stage": "properties", "target": "cmd2:x", "error": null},
            {"stage": "fuzz", "target": "cmd2:x", "error": "atheris is not installed"}]}`

func TestTheReportIsReadWithReproducersFromWhereTheGateRan(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "report")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(reportJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	report, err := readReport(dir, base)
	if err != nil {
		t.Fatal(err)
	}
	confirmed := report.Confirmed()
	if report.OK || report.Counts["unreachable"] != 1 || len(report.Bugs) != 2 || len(confirmed) != 1 {
		t.Fatalf("report %+v", report)
	}
	bug := confirmed[0]
	if bug.Reproducer != filepath.Join(base, "report/reproducers/h5.json") ||
		bug.Consequences[0].Reproducer != filepath.Join(base, "report/reproducers/balance.json") ||
		report.Bugs[1].Reproducer != "/elsewhere/h1.json" {
		t.Errorf("reproducers %q %q %q", bug.Reproducer, bug.Consequences[0].Reproducer, report.Bugs[1].Reproducer)
	}
	if len(report.Errors) != 1 || report.Errors[0] != "fuzz: atheris is not installed" {
		t.Errorf("errors %q", report.Errors)
	}
	said := bug.describe()
	for _, want := range []string{"bug H5 (found by properties): 1 partition(s)", "reproducer: " + bug.Reproducer,
		"replay: assigncheck replay " + bug.Reproducer, "and, on the same partitions, balance.perfect: counts 1, 0"} {
		if !strings.Contains(said, want) {
			t.Errorf("%q does not say %q", said, want)
		}
	}
}

func TestTargetWordsAreQuotedAsAShellSplitsThem(t *testing.T) {
	for word, quoted := range map[string]string{
		"/tmp/gate/bin/prog": "/tmp/gate/bin/prog",
		"/tmp/my gate/prog":  "'/tmp/my gate/prog'",
		"it's":               `'it'"'"'s'`,
		"":                   "''",
	} {
		if got := shellQuote(word); got != quoted {
			t.Errorf("shellQuote(%q) = %s, want %s", word, got, quoted)
		}
	}
	if got := safeName("TestGate/sticky (2)"); got != "TestGate_sticky_2" {
		t.Errorf("safeName: %s", got)
	}
}

var sprintf, sprintln = fmt.Sprintf, fmt.Sprintln
