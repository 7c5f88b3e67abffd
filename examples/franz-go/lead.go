package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

// outcome is a balance's result as the group's members read it, or why there is none.
type outcome struct {
	assignment map[string]map[string][]int32 // member => topic => partitions
	adapted    string
	err        error
	exception  string // a crash's identity: the panic value's type, or "error" for a returned error
	frame      string // where it was raised
}

// balance is the leader's step that runs franz-go's code: the member balancer (prepare), then Balance. It
// returns the GroupMemberBalancer's plan, not yet encoded.
func balance(balancer kgo.GroupBalancer, g group) (kgo.IntoSyncAssignment, error) {
	memberBalancer, counts, err := prepare(balancer, g)
	if err != nil {
		return nil, err
	}
	return balanceTopics(memberBalancer, counts)
}

// prepare is MemberBalancer over the JoinGroup members, and the partition counts of the topics it returned
// that the metadata has: a topic the leader cannot find is left out, as kgo's leader leaves out a topic its
// metadata request fails on.
func prepare(balancer kgo.GroupBalancer, g group) (kgo.GroupMemberBalancer, map[string]int32, error) {
	memberBalancer, topics, err := balancer.MemberBalancer(g.members)
	if err != nil {
		return nil, nil, fmt.Errorf("MemberBalancer: %w", err)
	}
	counts := make(map[string]int32, len(topics))
	for topic := range topics {
		if n, ok := g.counts[topic]; ok {
			counts[topic] = n
		}
	}
	return memberBalancer, counts, nil
}

// balanceTopics calls Balance as kgo's leader does: BalanceOrError where the balancer has it.
func balanceTopics(memberBalancer kgo.GroupMemberBalancer, counts map[string]int32) (kgo.IntoSyncAssignment, error) {
	if orError, ok := memberBalancer.(kgo.GroupMemberBalancerOrError); ok {
		into, err := orError.BalanceOrError(counts)
		if err != nil {
			return nil, fmt.Errorf("Balance: %w", err)
		}
		return into, nil
	}
	return memberBalancer.Balance(counts), nil
}

// lead balances the group and reads the plan back as the coordinator and the members do: the coordinator
// hands each member the assignment the plan lists for it (a member it does not list gets an empty one, an
// entry for a member not in the group goes nowhere) and each member decodes its own with the balancer's
// ParseSyncAssignment. A panic anywhere in franz-go's code is reported with its type and frame.
func lead(balancer kgo.GroupBalancer, g group) (result outcome) {
	defer func() {
		if r := recover(); r != nil {
			result = outcome{err: fmt.Errorf("panic: %v", r), exception: fmt.Sprintf("%T", r), frame: panicFrame()}
		}
	}()
	into, err := balance(balancer, g)
	if err != nil {
		return outcome{err: err, exception: "error", frame: strings.SplitN(err.Error(), ":", 2)[0]}
	}
	if into == nil {
		return outcome{err: errors.New("Balance returned no plan and no error"), exception: "nil-plan",
			frame: "Balance"}
	}
	return readPlan(balancer, g, into)
}

func readPlan(balancer kgo.GroupBalancer, g group, into kgo.IntoSyncAssignment) outcome {
	result := outcome{assignment: make(map[string]map[string][]int32, len(g.members))}
	for i := range g.members {
		result.assignment[g.members[i].MemberID] = map[string][]int32{}
	}
	var strangers []string
	for _, sync := range into.IntoSyncAssignment() {
		if _, ok := result.assignment[sync.MemberID]; !ok {
			strangers = append(strangers, sync.MemberID)
			continue
		}
		parsed, err := balancer.ParseSyncAssignment(sync.MemberAssignment)
		if err != nil {
			return outcome{err: fmt.Errorf("ParseSyncAssignment of %s's assignment: %w", sync.MemberID, err),
				exception: "error", frame: "ParseSyncAssignment"}
		}
		mine := make(map[string][]int32, len(parsed))
		for topic, partitions := range parsed {
			if partitions == nil {
				partitions = []int32{}
			}
			mine[topic] = partitions
		}
		result.assignment[sync.MemberID] = mine // the coordinator keeps the last entry for a member
	}
	if len(strangers) > 0 {
		result.adapted = fmt.Sprintf("the plan names %d member(s) not in the group (%s): the coordinator "+
			"hands those assignments to nobody", len(strangers), strings.Join(strangers[:min(3, len(strangers))], ", "))
	}
	return result
}

// panicFrame is where the panic being recovered was raised: the innermost frame outside the Go runtime,
// as function(file:line).
func panicFrame() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	inPanic := false
	for {
		frame, more := frames.Next()
		if strings.HasPrefix(frame.Function, "runtime.") {
			inPanic = inPanic || frame.Function == "runtime.gopanic"
		} else if inPanic {
			return fmt.Sprintf("%s(%s:%d)", frame.Function, filepath.Base(frame.File), frame.Line)
		}
		if !more {
			return "unknown"
		}
	}
}
