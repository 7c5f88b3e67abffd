// Package kafkago runs a segmentio/kafka-go group balancer (a kafka.GroupBalancer) as an assigncheck cmd2:
// target, driving it exactly as kafka-go's ConsumerGroup leader does. A program that gates a balancer is
//
//	func main() { kafkago.Serve(mybalancer.New()) }
//
// and assigncheck runs it as `--target cmd2:PROGRAM`.
//
// Each problem is led as kafka-go's leader leads a group (consumergroup.go, assignTopicPartitions): the members
// in the order the coordinator lists them, each a GroupMember as the leader decodes it from the JoinGroup
// response (its ID, the topics it is configured with, and the UserData its own balancer gave), the partitions
// of the members' topics as the leader's ReadPartitions returns them (topics sorted, partitions by id, each
// with its leader broker and that broker's rack), then AssignGroups(members, partitions), and each member's
// assignment as it reads its SyncGroup answer. kafka-go's members send no previous assignment and speak only
// the eager protocol.
//
// One rule of kafka-go's leader is kept as it is: ReadPartitions on the coordinator's connection returns no
// partitions at all when any requested topic has an error, and the leader goes on with none when that error
// is UnknownTopicOrPartition ("it's not a failure if the topic doesn't exist yet"). So a member subscribed to
// a topic the metadata lacks leaves every member of the group without partitions.
//
// Racks: kafka-go's consumer sends its rack only through a balancer's UserData (RackAffinityGroupBalancer's
// Rack), and a partition's rack is its leader's. A problem gives each partition the racks of its replicas;
// the leader is taken in the first of them in sorted order.
package kafkago

import (
	"github.com/segmentio/kafka-go"

	"github.com/assigncheck/assigncheck/go/cmd2"
)

// Balancers are kafka-go's own balancers, by the protocol name each one registers, as a member configures
// them with its own client.rack.
var Balancers = map[string]func(rack string) kafka.GroupBalancer{
	"range":         func(string) kafka.GroupBalancer { return kafka.RangeGroupBalancer{} },
	"roundrobin":    func(string) kafka.GroupBalancer { return kafka.RoundRobinGroupBalancer{} },
	"rack-affinity": func(rack string) kafka.GroupBalancer { return kafka.RackAffinityGroupBalancer{Rack: rack} },
}

// Serve answers cmd2: requests on standard input with balancer, as every member's, until the input ends. A
// RackAffinityGroupBalancer is given each member's rack, as each consumer configures its own; a balancer of
// yours whose UserData differs from member to member is served by ServeEach.
func Serve(balancer kafka.GroupBalancer) {
	cmd2.Serve(Leader(perMember(balancer)))
}

// ServeEach is Serve with each member's balancer made by newBalancer from that member's client.rack ("" when it
// has none); the group's leader, whose AssignGroups runs, is the first member the coordinator lists.
func ServeEach(newBalancer func(rack string) kafka.GroupBalancer) {
	cmd2.Serve(Leader(newBalancer))
}

// Leader is the leader of every problem for cmd2.ServeIO, each member's balancer made by newBalancer.
func Leader(newBalancer func(rack string) kafka.GroupBalancer) cmd2.Leader {
	return func(p *cmd2.Problem) cmd2.Result { return Lead(newBalancer, p) }
}

// perMember configures balancer for each member: itself, or, for kafka-go's rack-affinity balancer, one with the
// member's rack.
func perMember(balancer kafka.GroupBalancer) func(rack string) kafka.GroupBalancer {
	switch balancer.(type) {
	case kafka.RackAffinityGroupBalancer, *kafka.RackAffinityGroupBalancer:
		return Balancers["rack-affinity"]
	}
	return func(string) kafka.GroupBalancer { return balancer }
}
