// Package saramabalance runs a sarama balance strategy (a sarama.BalanceStrategy) as an assigncheck cmd2:
// target, driving it exactly as sarama's consumer-group leader does. A program that gates a strategy is
//
//	func main() { saramabalance.Serve(mystrategy.New()) }
//
// and assigncheck runs it as `--target cmd2:PROGRAM`. The package is not called sarama so that a program can
// import both.
//
// Each problem is led as sarama's leader leads a group (consumer_group.go, joinSync): every member's
// ConsumerGroupMemberMetadata is what its own sarama consumer sends in its JoinGroup request, encoded and
// decoded with sarama's own code (JoinGroupRequest.AddGroupProtocolMetadata, JoinGroupResponse.GetMembers); the
// topics the members subscribe to get their partitions from the metadata, and a topic the metadata lacks fails
// the rebalance, as sarama's Client.Partitions fails there; then Plan(members, topics), each member's entry
// with AssignmentData, every member the plan leaves out an empty assignment, and each member's assignment
// decoded with sarama's SyncGroupResponse.GetMemberAssignment, its partitions sorted, as each member reads its
// SyncGroup answer.
//
// What a member sends, as sarama builds it (consumer_group.go, subscriptionMetadata), at the metadata version
// sarama's Config.Version gives (DefaultVersion unless WithVersion says otherwise: 1 from V2_4_0_0, 2 from
// V3_2_0_0):
//   - a strategy that supports the cooperative protocol (RebalanceProtocolBalanceStrategy) makes the group
//     cooperative, as it does when it is the only one configured: each member sends the partitions it owns
//     and, at version 2, their generation;
//   - under the eager protocol a member rejoins owning nothing and with no generation, and its user data is
//     what the previous leader's AssignmentData gave it with its assignment (nothing for a new member);
//   - a strategy with SubscriptionUserData supplies the user data instead, after OnAssignment (where it has
//     one) told it the member's previous assignment and generation: each member's own strategy state.
//
// sarama's members send no rack, so every strategy leads rack-blind.
package saramabalance

import (
	"github.com/IBM/sarama"

	"github.com/assigncheck/assigncheck/go/cmd2"
)

// Strategies are sarama's own balance strategies, by the protocol name each one registers; each call makes a
// new one (sarama's stateful strategies must not be shared).
var Strategies = map[string]func() sarama.BalanceStrategy{
	sarama.RangeBalanceStrategyName:             sarama.NewBalanceStrategyRange,
	sarama.RoundRobinBalanceStrategyName:        sarama.NewBalanceStrategyRoundRobin,
	sarama.StickyBalanceStrategyName:            sarama.NewBalanceStrategySticky,
	sarama.CooperativeStickyBalanceStrategyName: sarama.NewBalanceStrategyCooperativeSticky,
}

// Option changes how the members are configured.
type Option func(*leader)

// WithVersion sets the members' sarama Config.Version (sarama.DefaultVersion otherwise): it decides the
// version of the metadata they send.
func WithVersion(version sarama.KafkaVersion) Option {
	return func(l *leader) { l.version = version }
}

// Serve answers cmd2: requests on standard input with strategy, until the input ends. The one strategy value
// plays every member in turn (its OnAssignment, where it has one, is told each member's previous assignment
// before that member's SubscriptionUserData) and then leads; a stateful strategy whose members each need their
// own value is served by ServeEach.
func Serve(strategy sarama.BalanceStrategy, options ...Option) {
	l := newLeader(func() sarama.BalanceStrategy { return strategy }, options)
	l.shared = true
	cmd2.Serve(l.lead)
}

// ServeEach is Serve with a strategy value of its own for every member of every problem, made by newStrategy,
// as each sarama consumer configures its own; the group's leader is the first member the coordinator lists.
func ServeEach(newStrategy func() sarama.BalanceStrategy, options ...Option) {
	cmd2.Serve(Leader(newStrategy, options...))
}

// Leader is the leader of every problem for cmd2.ServeIO, each member's strategy made by newStrategy.
func Leader(newStrategy func() sarama.BalanceStrategy, options ...Option) cmd2.Leader {
	return newLeader(newStrategy, options).lead
}

func newLeader(newStrategy func() sarama.BalanceStrategy, options []Option) *leader {
	l := &leader{newStrategy: newStrategy, version: sarama.DefaultVersion}
	for _, option := range options {
		option(l)
	}
	return l
}
