package franzgo

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assigncheck/assigncheck/go/cmd2"
)

// group is what kgo's leader holds when it balances: the JoinGroup response's members (their metadata as
// their own consumers encoded it, sorted as MemberBalancer is promised) and the partition count of every
// topic the metadata knows.
type group struct {
	members []kmsg.JoinGroupResponseMember
	counts  map[string]int32
	info    kgo.BalanceInfo // what kgo's leader sets on a member balancer that takes it (GroupMemberBalancerInfo)
	adapted string
}

// join builds the group afresh (new metadata bytes every time: MemberBalancer may rewrite them in place).
func join(balancer kgo.GroupBalancer, p *cmd2.Problem) group {
	members := make([]kmsg.JoinGroupResponseMember, len(p.Members))
	for i := range p.Members {
		m := &p.Members[i]
		// kgo's consumer sorts its topics, and the partitions it was assigned, before JoinGroupMetadata; a
		// consumer that has not joined yet knows no generation
		metadata := balancer.JoinGroupMetadata(m.SortedSubscription(), m.SortedOwned(), m.GenerationOr(-1))
		if rack := m.RackName(); rack != "" {
			// KIP-881: the consumer adds its configured rack to the metadata the balancer made (unless
			// the balancer set one), raising the version to 3 where the field exists.
			meta := kmsg.NewConsumerMemberMetadata()
			if err := meta.ReadFrom(metadata); err == nil && meta.Rack == nil {
				meta.Rack = &rack
				meta.Version = max(meta.Version, 3)
				metadata = meta.AppendTo(nil)
			}
		}
		members[i] = kmsg.JoinGroupResponseMember{
			MemberID:         m.ID,
			InstanceID:       m.InstanceID,
			ProtocolMetadata: metadata,
		}
	}
	sort.Slice(members, func(i, j int) bool { return memberLess(&members[i], &members[j]) })

	var notes []string
	want := "eager"
	if balancer.IsCooperative() {
		want = "cooperative"
	}
	if p.Protocol != "" && p.Protocol != want {
		notes = append(notes, fmt.Sprintf("the group runs the %s protocol, the only one %s speaks", want,
			balancer.ProtocolName()))
	}
	if p.HasRacks() {
		notes = append(notes, "rack-blind: kgo balances by rack only with the client option BalanceRacks, "+
			"which its leader sets and a GroupBalancer cannot be given")
	}
	return group{members: members, counts: p.Topics, info: balanceInfo(p), adapted: strings.Join(notes, "; ")}
}

// balanceInfo is what kgo's leader tells a GroupMemberBalancerInfo before it balances: the generation it
// balances into (one past the newest a member reports), the leader (the first member the coordinator lists),
// and the metadata of the group's topics and of the brokers, a broker per rack the problem names, each
// partition's replicas in its racks and its leader in the first of them in sorted order.
func balanceInfo(p *cmd2.Problem) kgo.BalanceInfo {
	info := kgo.BalanceInfo{Group: "assigncheck"}
	for i := range p.Members {
		info.Generation = max(info.Generation, p.Members[i].GenerationOr(0))
	}
	info.Generation++
	if len(p.Members) > 0 {
		info.LeaderID = p.Members[0].ID
	}
	racks := map[string]bool{}
	for _, perPartition := range p.PartitionRacks {
		for _, replicas := range perPartition {
			for _, rack := range replicas {
				racks[rack] = true
			}
		}
	}
	brokers := map[int32]kgo.BrokerMetadata{}
	nodeOf := map[string]int32{}
	for id, rack := range slices.Sorted(maps.Keys(racks)) {
		node := int32(id)
		brokers[node] = kgo.BrokerMetadata{NodeID: node, Rack: &rack}
		nodeOf[rack] = node
	}
	topics := make(map[string]kgo.TopicMetadata, len(p.Topics))
	for topic, count := range p.Topics {
		meta := kgo.TopicMetadata{Topic: topic, Partitions: make([]kgo.PartitionMetadata, count)}
		for i := range meta.Partitions {
			partition := kgo.PartitionMetadata{Topic: topic, Partition: int32(i), Leader: -1, LeaderEpoch: -1}
			if perPartition := p.PartitionRacks[topic]; i < len(perPartition) {
				replicas := slices.Clone(perPartition[i])
				slices.Sort(replicas)
				for _, rack := range slices.Compact(replicas) {
					partition.Replicas = append(partition.Replicas, nodeOf[rack])
				}
				if len(partition.Replicas) > 0 {
					partition.Leader = partition.Replicas[0]
				}
				partition.ISR = slices.Clone(partition.Replicas)
			}
			meta.Partitions[i] = partition
		}
		topics[topic] = meta
	}
	info.Topics = func() map[string]kgo.TopicMetadata { return topics }
	info.Brokers = func() map[int32]kgo.BrokerMetadata { return brokers }
	return info
}

// memberLess is the order GroupBalancer.MemberBalancer documents for its input: members with an instance ID
// first, by instance ID, then the others by member ID.
func memberLess(l, r *kmsg.JoinGroupResponseMember) bool {
	switch {
	case l.InstanceID != nil && r.InstanceID != nil:
		return *l.InstanceID < *r.InstanceID
	case l.InstanceID != nil || r.InstanceID != nil:
		return l.InstanceID != nil
	}
	return l.MemberID < r.MemberID
}
