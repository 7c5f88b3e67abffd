package gogate

import (
	"os"
	"testing"

	"github.com/assigncheck/assigncheck/go/gatetest"
)

// promises is what the ordered balancer promises: Kafka's round-robin assignment, exactly.
var promises = gatetest.Promises("exact=roundrobin,balance=perfect")

func TestOrderedPassesTheGate(t *testing.T) {
	gatetest.Gate(t, "./cmd/ordered", promises, gatetest.Stages("properties"))
}

func TestThePlantedBugFailsTheGate(t *testing.T) {
	report := gatetest.Run(t, "./cmd/planted", promises, gatetest.Stages("properties"))
	bugs := report.Confirmed()
	if report.OK || len(bugs) == 0 {
		t.Fatalf("the gate passed the planted bug:\n%s", report.Output)
	}
	for _, bug := range bugs {
		if _, err := os.Stat(bug.Reproducer); err != nil {
			t.Errorf("bug %s: its reproducer: %v", bug.Invariant, err)
		}
	}
	t.Logf("found %d bug(s), the first %s: %s (reproducer %s)", len(bugs), bugs[0].Invariant, bugs[0].Message,
		bugs[0].Reproducer)
}
