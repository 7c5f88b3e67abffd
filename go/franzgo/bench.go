package franzgo

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assigncheck/assigncheck/go/cmd2"
)

// InputError is a problem file Bench cannot read: bad usage, not a failure of the balancer.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// timing is one problem file's Bench result: CPU and wall milliseconds of each timed Balance call, and the
// last call's plan as the members read it (so the caller can judge its quality).
type timing struct {
	File       string          `json:"file"`
	Balancer   string          `json:"balancer"`
	Warmup     int             `json:"warmup"`
	CPUms      []float64       `json:"cpu_ms"`
	Wallms     []float64       `json:"wall_ms"`
	Assignment cmd2.Assignment `json:"assignment"`
}

// Bench times Balance on each file and writes one JSON line per file to out: `warmup` whole leader steps first, then `calls` timed calls. Each
// call gets fresh inputs (the members' metadata encoded anew and MemberBalancer run over it, outside the
// timed region) and starts after a full collection, so no call inherits another's garbage; a collection
// that Balance's own allocations start is part of its cost. CPU time is the process's (every thread: Go's
// collector marks on other threads), wall time the call's.
func Bench(balancer kgo.GroupBalancer, files []string, warmup, calls int, out io.Writer) error {
	encoder := json.NewEncoder(out)
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return &InputError{Path: path, Err: err}
		}
		p, err := cmd2.ParseProblem(data)
		if err != nil {
			return &InputError{Path: path, Err: err}
		}
		t, err := benchOne(balancer, p, warmup, calls)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		t.File = path
		if err := encoder.Encode(t); err != nil {
			return err
		}
	}
	return nil
}

func benchOne(balancer kgo.GroupBalancer, p *cmd2.Problem, warmup, calls int) (timing, error) {
	t := timing{Balancer: balancer.ProtocolName(), Warmup: warmup}
	for range warmup {
		if result := lead(balancer, join(balancer, p)); result.Err != nil {
			return t, result.Err
		}
	}
	var g group
	var into kgo.IntoSyncAssignment
	for range calls {
		g = join(balancer, p)
		memberBalancer, counts, err := prepare(balancer, g)
		if err != nil {
			return t, err
		}
		runtime.GC()
		cpu0, wall0 := cpuSeconds(), time.Now()
		into, err = balanceTopics(memberBalancer, counts)
		wall, cpu := time.Since(wall0), cpuSeconds()-cpu0
		if err != nil {
			return t, err
		}
		t.CPUms = append(t.CPUms, cpu*1000)
		t.Wallms = append(t.Wallms, float64(wall.Nanoseconds())/1e6)
	}
	result := readPlan(balancer, g, into)
	if result.Err != nil {
		return t, result.Err
	}
	t.Assignment = result.Assignment
	return t, nil
}

// cpuSeconds is the CPU time this process has used, user and system, over all its threads.
func cpuSeconds() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		panic(err)
	}
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
}
