// Package franzgo runs a franz-go group balancer (a kgo.GroupBalancer) as an assigncheck cmd2: target, driving
// it exactly as kgo's group leader does. A program that gates a balancer is
//
//	func main() { franzgo.Serve(mybalancer.New()) }
//
// and assigncheck runs it as `--target cmd2:PROGRAM`.
//
// Each problem is led as kgo's leader leads a group: every member's JoinGroup metadata is what its own kgo
// consumer sends (the balancer's JoinGroupMetadata over its sorted topics, its previously assigned partitions
// and generation, its rack added as the consumer adds it), the members sorted as GroupBalancer.MemberBalancer
// is promised, then MemberBalancer(members), SetBalanceInfo where the member balancer takes it (the generation,
// the leader, the topics' and brokers' metadata with the problem's racks), Balance (BalanceOrError where the
// balancer has it) over the partition counts of the topics it returned that exist, and the IntoSyncAssignment
// plan read back with the balancer's own ParseSyncAssignment, as each member reads its SyncGroup answer.
//
// kgo's leader fills a ConsumerBalancer's PartitionRacks from its client's metadata cache, through fields a
// GroupBalancer's caller cannot set, and its own balancers use them only with the client option BalanceRacks:
// here PartitionRacks stays empty and kgo's balancers are rack-blind; a balancer of yours reads racks from
// BalanceInfo's Topics and Brokers.
package franzgo

import (
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assigncheck/assigncheck/go/cmd2"
)

// Balancers are kgo's own balancers, by the protocol name each one registers.
var Balancers = map[string]func() kgo.GroupBalancer{
	"range":              kgo.RangeBalancer,
	"roundrobin":         kgo.RoundRobinBalancer,
	"sticky":             kgo.StickyBalancer,
	"cooperative-sticky": kgo.CooperativeStickyBalancer,
}

// Serve answers cmd2: requests on standard input with balancer, one for the program's life as a consumer keeps
// the balancers it was configured with, until the input ends.
func Serve(balancer kgo.GroupBalancer) {
	cmd2.Serve(Leader(balancer))
}

// Leader is balancer's leader for cmd2.ServeIO.
func Leader(balancer kgo.GroupBalancer) cmd2.Leader {
	return func(p *cmd2.Problem) cmd2.Result { return Lead(balancer, p) }
}
