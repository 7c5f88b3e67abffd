// Package ordered is a franz-go group balancer to gate: it deals the partitions, topic by topic in name
// order, to the group's members in turn (in the order kgo sorts them), skipping a member that does not
// subscribe to the topic: Kafka's round-robin assignment.
package ordered

import (
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// New is the balancer.
func New() kgo.GroupBalancer { return &balancer{} }

// NewPlanted is the balancer with a planted bug: it stops one partition short of each topic's last.
func NewPlanted() kgo.GroupBalancer { return &balancer{planted: true} }

type balancer struct{ planted bool }

func (*balancer) ProtocolName() string { return "ordered" }
func (*balancer) IsCooperative() bool  { return false }

func (*balancer) JoinGroupMetadata(topics []string, _ map[string][]int32, generation int32) []byte {
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Version = 3
	meta.Topics = topics
	meta.Generation = generation
	return meta.AppendTo(nil)
}

func (*balancer) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	return kgo.ParseConsumerSyncAssignment(assignment)
}

func (b *balancer) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	consumers, err := kgo.NewConsumerBalancer(b, members)
	return consumers, consumers.MemberTopics(), err
}

// Balance deals each partition to the next member in turn that subscribes to its topic.
func (b *balancer) Balance(consumers *kgo.ConsumerBalancer, topics map[string]int32) kgo.IntoSyncAssignment {
	members := consumers.Members()
	subscribes := make([]map[string]bool, len(members))
	for i := range members {
		_, meta := consumers.MemberAt(i)
		subscribes[i] = map[string]bool{}
		for _, topic := range meta.Topics {
			subscribes[i][topic] = true
		}
	}
	plan := consumers.NewPlan()
	next := 0
	for _, topic := range slices.Sorted(maps.Keys(topics)) {
		last := topics[topic]
		if b.planted {
			last-- // the planted bug
		}
		for partition := int32(0); partition < last; partition++ {
			for tries := 0; tries < len(members); tries++ {
				i := (next + tries) % len(members)
				if subscribes[i][topic] {
					plan.AddPartition(&members[i], topic, partition)
					next = i + 1
					break
				}
			}
		}
	}
	return plan
}
