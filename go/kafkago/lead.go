package kafkago

import (
	"maps"
	"slices"

	"github.com/segmentio/kafka-go"

	"github.com/assigncheck/assigncheck/go/cmd2"
)

// Lead leads the problem's group as kafka-go's leader does, each member's balancer made by newBalancer from its
// rack, and returns the assignment each member reads from its SyncGroup answer.
func Lead(newBalancer func(rack string) kafka.GroupBalancer, p *cmd2.Problem) cmd2.Result {
	var notes []string
	if p.Cooperative() {
		notes = append(notes, "the group runs the eager protocol, the only one kafka-go speaks")
	}
	for i := range p.Members {
		if len(p.Members[i].Owned) > 0 {
			notes = append(notes, "kafka-go's members send no previous assignment: the claims are not sent")
			break
		}
	}
	notes = append(notes, rackNotes(newBalancer, p)...)
	result := cmd2.Protect(func() cmd2.Result { return lead(newBalancer, p) })
	result.Adapted = cmd2.Join(append(notes, result.Adapted)...)
	return result
}

func lead(newBalancer func(rack string) kafka.GroupBalancer, p *cmd2.Problem) cmd2.Result {
	members := make([]kafka.GroupMember, len(p.Members))
	var leading kafka.GroupBalancer
	for i := range p.Members {
		m := &p.Members[i]
		balancer := newBalancer(m.RackName())
		if leading == nil {
			leading = balancer // the first member to join leads
		}
		userData, err := balancer.UserData()
		if err != nil { // the member cannot build its JoinGroup request
			return cmd2.Result{Err: cmd2.Failed("UserData", err)}
		}
		members[i] = kafka.GroupMember{ID: m.ID, Topics: slices.Clone(m.Subscription), UserData: userData}
	}
	if leading == nil {
		leading = newBalancer("")
	}
	plan := leading.AssignGroups(members, readPartitions(p, members))
	return readSync(members, plan)
}

// readPartitions is what the leader's ReadPartitions returns for the members' topics: every partition of those
// topics, or none at all when the metadata lacks one of them.
func readPartitions(p *cmd2.Problem, members []kafka.GroupMember) []kafka.Partition {
	requested := map[string]bool{}
	for _, m := range members {
		for _, topic := range m.Topics {
			requested[topic] = true
		}
	}
	brokers := brokersOf(p)
	var partitions []kafka.Partition
	for _, topic := range slices.Sorted(maps.Keys(requested)) {
		count, ok := p.Topics[topic]
		if !ok {
			return nil // UnknownTopicOrPartition: the leader goes on with no partitions
		}
		for id := range int(count) {
			partition := kafka.Partition{Topic: topic, ID: id}
			if racks := replicaRacks(p, topic, id); len(racks) > 0 {
				for _, rack := range racks {
					partition.Replicas = append(partition.Replicas, brokers[rack])
				}
				partition.Leader = partition.Replicas[0]
				partition.Isr = slices.Clone(partition.Replicas)
			}
			partitions = append(partitions, partition)
		}
	}
	return partitions
}

// replicaRacks is the partition's replicas' racks, sorted: the first holds its leader.
func replicaRacks(p *cmd2.Problem, topic string, id int) []string {
	perPartition, ok := p.PartitionRacks[topic]
	if !ok || id >= len(perPartition) {
		return nil
	}
	racks := slices.Clone(perPartition[id])
	slices.Sort(racks)
	return slices.Compact(racks)
}

// brokersOf is a broker per rack the problem names: its replicas live there.
func brokersOf(p *cmd2.Problem) map[string]kafka.Broker {
	racks := map[string]bool{}
	for _, perPartition := range p.PartitionRacks {
		for _, replicas := range perPartition {
			for _, rack := range replicas {
				racks[rack] = true
			}
		}
	}
	brokers := make(map[string]kafka.Broker, len(racks))
	for id, rack := range slices.Sorted(maps.Keys(racks)) {
		brokers[rack] = kafka.Broker{ID: id, Rack: rack}
	}
	return brokers
}

// rackNotes says how the problem's racks reach the balancer.
func rackNotes(newBalancer func(rack string) kafka.GroupBalancer, p *cmd2.Problem) []string {
	if !p.HasRacks() {
		return nil
	}
	switch newBalancer("").(type) {
	case kafka.RangeGroupBalancer, kafka.RoundRobinGroupBalancer, *kafka.RangeGroupBalancer, *kafka.RoundRobinGroupBalancer:
		return []string{"rack-blind: kafka-go's range and round-robin balancers read no racks"}
	}
	for _, perPartition := range p.PartitionRacks {
		for _, replicas := range perPartition {
			if len(slices.Compact(slices.Sorted(slices.Values(replicas)))) > 1 {
				return []string{"kafka-go sees a partition's leader's rack only: the leader taken in the first " +
					"of its replicas' racks"}
			}
		}
	}
	return nil
}

// readSync is what each member reads: the leader's SyncGroup request carries an entry per member the plan names
// (partitions as int32), the coordinator hands each member its own (none: an empty assignment; one for a member
// not in the group goes nowhere), and the member decodes it.
func readSync(members []kafka.GroupMember, plan kafka.GroupMemberAssignments) cmd2.Result {
	assignment := make(cmd2.Assignment, len(members))
	for _, m := range members {
		assignment[m.ID] = map[string][]int32{}
	}
	var strangers []string
	for memberID, topics := range plan {
		if _, ok := assignment[memberID]; !ok {
			strangers = append(strangers, memberID)
			continue
		}
		mine := make(map[string][]int32, len(topics))
		for topic, partitions := range topics {
			ids := make([]int32, len(partitions))
			for i, partition := range partitions {
				ids[i] = int32(partition) // as makeSyncGroupRequestV0 converts them
			}
			slices.Sort(ids)
			mine[topic] = ids
		}
		assignment[memberID] = mine
	}
	slices.Sort(strangers)
	return cmd2.Result{Assignment: assignment, Adapted: cmd2.StrangersNote(strangers)}
}
