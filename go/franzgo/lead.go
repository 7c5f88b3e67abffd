package franzgo

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assigncheck/assigncheck/go/cmd2"
)

// Lead leads the problem's group with balancer as kgo's group leader does, and returns the assignment each
// member reads from its SyncGroup answer. A panic in the balancer is an error Result with its type and frame.
func Lead(balancer kgo.GroupBalancer, p *cmd2.Problem) cmd2.Result {
	var g group
	result := cmd2.Protect(func() cmd2.Result {
		g = join(balancer, p)
		return lead(balancer, g)
	})
	result.Adapted = cmd2.Join(g.adapted, result.Adapted)
	return result
}

// balance is the leader's step that runs the balancer's code: the member balancer (prepare), then Balance. It
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
// metadata request fails on. A member balancer that takes BalanceInfo is given it, as kgo's leader gives it.
func prepare(balancer kgo.GroupBalancer, g group) (kgo.GroupMemberBalancer, map[string]int32, error) {
	memberBalancer, topics, err := balancer.MemberBalancer(g.members)
	if err != nil {
		return nil, nil, cmd2.Failed("MemberBalancer", err)
	}
	counts := make(map[string]int32, len(topics))
	for topic := range topics {
		if n, ok := g.counts[topic]; ok {
			counts[topic] = n
		}
	}
	if withInfo, ok := memberBalancer.(kgo.GroupMemberBalancerInfo); ok {
		withInfo.SetBalanceInfo(g.info)
	}
	return memberBalancer, counts, nil
}

// balanceTopics calls Balance as kgo's leader does: BalanceOrError where the balancer has it.
func balanceTopics(memberBalancer kgo.GroupMemberBalancer, counts map[string]int32) (kgo.IntoSyncAssignment, error) {
	if orError, ok := memberBalancer.(kgo.GroupMemberBalancerOrError); ok {
		into, err := orError.BalanceOrError(counts)
		if err != nil {
			return nil, cmd2.Failed("Balance", err)
		}
		return into, nil
	}
	return memberBalancer.Balance(counts), nil
}

// lead balances the group and reads the plan back as the coordinator and the members do.
func lead(balancer kgo.GroupBalancer, g group) cmd2.Result {
	into, err := balance(balancer, g)
	if err != nil {
		return cmd2.Result{Err: err}
	}
	if into == nil {
		return cmd2.Result{Err: &cmd2.Failure{Err: errors.New("Balance returned no plan and no error"),
			Exception: "nil-plan", Frame: "Balance"}}
	}
	return readPlan(balancer, g, into)
}

// readPlan reads the plan as the coordinator and the members do: the coordinator hands each member the
// assignment the plan lists for it (a member it does not list gets an empty one, an entry for a member not in
// the group goes nowhere) and each member decodes its own with the balancer's ParseSyncAssignment.
func readPlan(balancer kgo.GroupBalancer, g group, into kgo.IntoSyncAssignment) cmd2.Result {
	assignment := make(cmd2.Assignment, len(g.members))
	for i := range g.members {
		assignment[g.members[i].MemberID] = map[string][]int32{}
	}
	var strangers []string
	for _, sync := range into.IntoSyncAssignment() {
		if _, ok := assignment[sync.MemberID]; !ok {
			strangers = append(strangers, sync.MemberID)
			continue
		}
		parsed, err := balancer.ParseSyncAssignment(sync.MemberAssignment)
		if err != nil {
			return cmd2.Result{Err: &cmd2.Failure{
				Err:       fmt.Errorf("ParseSyncAssignment of %s's assignment: %w", sync.MemberID, err),
				Exception: "error", Frame: "ParseSyncAssignment"}}
		}
		mine := make(map[string][]int32, len(parsed))
		for topic, partitions := range parsed {
			if partitions == nil {
				partitions = []int32{}
			}
			mine[topic] = partitions
		}
		assignment[sync.MemberID] = mine // the coordinator keeps the last entry for a member
	}
	return cmd2.Result{Assignment: assignment, Adapted: cmd2.StrangersNote(strangers)}
}
