package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// timing is one problem file's -bench result: CPU and wall milliseconds of each timed Balance call, and the
// last call's plan as the members read it (so the caller can judge its quality).
type timing struct {
	File       string                        `json:"file"`
	Balancer   string                        `json:"balancer"`
	Warmup     int                           `json:"warmup"`
	CPUms      []float64                     `json:"cpu_ms"`
	Wallms     []float64                     `json:"wall_ms"`
	Assignment map[string]map[string][]int32 `json:"assignment"`
}

// benchFiles times Balance on each file: `warmup` whole leader steps first, then `calls` timed calls. Each
// call gets fresh inputs (the members' metadata encoded anew and MemberBalancer run over it, outside the
// timed region) and starts after a full collection, so no call inherits another's garbage; a collection
// that Balance's own allocations start is part of its cost. CPU time is the process's (every thread: Go's
// collector marks on other threads), wall time the call's.
func benchFiles(balancer kgo.GroupBalancer, files []string, warmup, calls int) int {
	out := json.NewEncoder(os.Stdout)
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return usageError("%s: %v", path, err)
		}
		p, err := parseProblem(data)
		if err != nil {
			return usageError("%s: %v", path, err)
		}
		t, err := benchOne(balancer, p, warmup, calls)
		if err != nil {
			fmt.Fprintf(os.Stderr, "franz-go-driver: %s: %v\n", path, err)
			return 1
		}
		t.File = path
		if err := out.Encode(t); err != nil {
			fmt.Fprintf(os.Stderr, "franz-go-driver: %v\n", err)
			return 1
		}
	}
	return 0
}

func benchOne(balancer kgo.GroupBalancer, p *problem, warmup, calls int) (timing, error) {
	t := timing{Balancer: balancer.ProtocolName(), Warmup: warmup}
	for range warmup {
		if result := lead(balancer, p.join(balancer)); result.err != nil {
			return t, result.err
		}
	}
	var g group
	var into kgo.IntoSyncAssignment
	for range calls {
		g = p.join(balancer)
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
	if result.err != nil {
		return t, result.err
	}
	t.Assignment = result.assignment
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
