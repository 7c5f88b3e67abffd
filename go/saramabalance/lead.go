package saramabalance

import (
	"fmt"
	"maps"
	"slices"

	"github.com/IBM/sarama"

	"github.com/assigncheck/assigncheck/go/cmd2"
)

// leader leads each problem's group as sarama's consumer-group leader does.
type leader struct {
	newStrategy func() sarama.BalanceStrategy
	version     sarama.KafkaVersion
	shared      bool // one strategy value plays every member (Serve), not one each (ServeEach)
}

func (l *leader) lead(p *cmd2.Problem) cmd2.Result {
	strategies := make([]sarama.BalanceStrategy, len(p.Members))
	for i := range strategies {
		strategies[i] = l.newStrategy()
	}
	leading := l.newStrategy() // the first member's, the leader; a group of no members has only this one
	if len(strategies) > 0 {
		leading = strategies[0]
	}
	cooperative := supportsCooperative(leading)
	var notes []string
	if want := map[bool]string{true: "cooperative", false: "eager"}[cooperative]; p.Cooperative() != cooperative {
		notes = append(notes, fmt.Sprintf("the group runs the %s protocol, which sarama picks for a group whose "+
			"only strategy is %s", want, leading.Name()))
	}
	if p.HasRacks() {
		notes = append(notes, "rack-blind: sarama's members send no rack in their subscription metadata")
	}
	result := cmd2.Protect(func() cmd2.Result { return l.balance(p, strategies, leading, cooperative) })
	result.Adapted = cmd2.Join(append(notes, result.Adapted)...)
	return result
}

// supportsCooperative reports whether the strategy takes part in the cooperative protocol: alone in a group's
// configuration, it makes the group cooperative.
func supportsCooperative(strategy sarama.BalanceStrategy) bool {
	if s, ok := strategy.(sarama.RebalanceProtocolBalanceStrategy); ok {
		return slices.Contains(s.SupportedProtocols(), sarama.RebalanceProtocolCooperative)
	}
	return false
}

// balance is the leader's part of joinSync: the members' metadata as GetMembers decodes it, the subscribed
// topics' partitions, Plan, and the SyncGroup assignments as each member reads its own.
func (l *leader) balance(p *cmd2.Problem, strategies []sarama.BalanceStrategy, leading sarama.BalanceStrategy,
	cooperative bool) cmd2.Result {
	joined := &sarama.JoinGroupResponse{}
	generation := int32(0) // the generation this rebalance makes: one past the newest the members report
	for i := range p.Members {
		m := &p.Members[i]
		metadata, err := l.subscription(m, strategies[i], cooperative)
		if err != nil {
			return cmd2.Result{Err: err}
		}
		joined.Members = append(joined.Members, sarama.GroupMember{MemberId: m.ID, GroupInstanceId: m.InstanceID,
			Metadata: metadata})
		generation = max(generation, m.GenerationOr(0))
	}
	generation++
	members, err := joined.GetMembers()
	if err != nil {
		return cmd2.Result{Err: cmd2.Failed("GetMembers", err)}
	}
	topics, err := partitions(p, members)
	if err != nil {
		return cmd2.Result{Err: err}
	}
	plan, err := leading.Plan(members, topics)
	if err != nil {
		return cmd2.Result{Err: cmd2.Failed("Plan", err)}
	}
	sync := &sarama.SyncGroupRequest{}
	unlisted := maps.Clone(members)
	for memberID, assigned := range plan {
		userData, err := leading.AssignmentData(memberID, assigned, generation)
		if err != nil {
			return cmd2.Result{Err: cmd2.Failed("AssignmentData", err)}
		}
		assignment := &sarama.ConsumerGroupMemberAssignment{Topics: assigned, UserData: userData}
		if err := sync.AddGroupAssignmentMember(memberID, assignment); err != nil {
			return cmd2.Result{Err: cmd2.Failed("AddGroupAssignmentMember", err)}
		}
		delete(unlisted, memberID)
	}
	for memberID := range unlisted { // sarama's leader sends an empty assignment to every member the plan leaves out
		if err := sync.AddGroupAssignmentMember(memberID, &sarama.ConsumerGroupMemberAssignment{}); err != nil {
			return cmd2.Result{Err: cmd2.Failed("AddGroupAssignmentMember", err)}
		}
	}
	return readSync(members, sync)
}

// subscription is the member's ConsumerGroupMemberMetadata as its sarama consumer encodes it in its JoinGroup
// request (consumer_group.go, joinGroupRequest and subscriptionMetadata).
func (l *leader) subscription(m *cmd2.Member, strategy sarama.BalanceStrategy, cooperative bool) ([]byte, error) {
	rejoining := m.Generation != nil || len(m.Owned) > 0
	generation := m.GenerationOr(-1)
	owned := m.SortedOwned()
	// What the member read at its last SyncGroup: its assignment and the user data the leader's AssignmentData
	// gave it, which the member sends back as its user data (consumerGroup.userData).
	previous := &sarama.ConsumerGroupMemberAssignment{Topics: owned}
	if rejoining {
		userData, err := strategy.AssignmentData(m.ID, owned, generation)
		if err != nil {
			return nil, cmd2.Failed("AssignmentData", err)
		}
		previous.UserData = userData
	}
	meta := &sarama.ConsumerGroupMemberMetadata{
		Version:      subscriptionVersion(l.version),
		Topics:       slices.Clone(m.Subscription),
		UserData:     previous.UserData,
		GenerationID: -1, // an eager member rejoins holding nothing
	}
	if cooperative && rejoining { // a cooperative member rejoins holding what it owns (heldAssignment)
		meta.OwnedPartitions = ownedPartitions(owned)
		meta.GenerationID = generation
	}
	if onAssignment, ok := strategy.(sarama.OnAssignmentBalanceStrategy); ok && (rejoining || l.shared) {
		onAssignment.OnAssignment(previous, generation) // the member's own strategy state
	}
	if provider, ok := strategy.(sarama.SubscriptionUserDataBalanceStrategy); ok {
		// on an error sarama logs it and keeps the user data it had
		if userData, err := provider.SubscriptionUserData(slices.Clone(m.Subscription)); err == nil {
			meta.UserData = userData
		}
	}
	request := &sarama.JoinGroupRequest{}
	if err := request.AddGroupProtocolMetadata(strategy.Name(), meta); err != nil {
		return nil, cmd2.Failed("AddGroupProtocolMetadata", err)
	}
	return request.OrderedGroupProtocols[0].Metadata, nil
}

// subscriptionVersion is the metadata version sarama's consumer sends at its Config.Version.
func subscriptionVersion(version sarama.KafkaVersion) int16 {
	switch {
	case version.IsAtLeast(sarama.V3_2_0_0):
		return 2 // KIP-792: the generation
	case version.IsAtLeast(sarama.V2_4_0_0):
		return 1 // KIP-429: the owned partitions
	}
	return 0
}

// ownedPartitions is the owned partitions' wire form, topics and partitions sorted as sarama sorts them.
func ownedPartitions(owned map[string][]int32) []*sarama.OwnedPartition {
	var out []*sarama.OwnedPartition
	for _, topic := range slices.Sorted(maps.Keys(owned)) {
		out = append(out, &sarama.OwnedPartition{Topic: topic, Partitions: owned[topic]})
	}
	return out
}

// partitions is topic => partition ids for every topic a member subscribes to, as the leader's client reads
// them from the metadata (sorted): a topic the metadata lacks fails the rebalance, as Client.Partitions fails
// with ErrUnknownTopicOrPartition once its metadata refresh gives up.
func partitions(p *cmd2.Problem, members map[string]sarama.ConsumerGroupMemberMetadata) (map[string][]int32, error) {
	topics := make(map[string][]int32)
	for _, meta := range members {
		for _, topic := range meta.Topics {
			topics[topic] = nil
		}
	}
	var missing []string
	for topic := range topics {
		count, ok := p.Topics[topic]
		if !ok {
			missing = append(missing, topic)
			continue
		}
		ids := make([]int32, count)
		for i := range ids {
			ids[i] = int32(i)
		}
		topics[topic] = ids
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, &cmd2.Failure{Err: fmt.Errorf("consumerGroup.balance: Partitions(%q): %w", missing[0],
			sarama.ErrUnknownTopicOrPartition), Exception: "sarama.KError", Frame: "consumerGroup.balance"}
	}
	return topics, nil
}

// readSync is what each member reads from the SyncGroup request the leader sent: the coordinator hands each
// member the last assignment listed for it (one for a member not in the group goes nowhere), and the member
// decodes it with GetMemberAssignment and sorts each topic's partitions.
func readSync(members map[string]sarama.ConsumerGroupMemberMetadata, sync *sarama.SyncGroupRequest) cmd2.Result {
	assignment := make(cmd2.Assignment, len(members))
	for memberID := range members {
		assignment[memberID] = map[string][]int32{}
	}
	var strangers []string
	for _, entry := range sync.GroupAssignments {
		if _, ok := members[entry.MemberId]; !ok {
			strangers = append(strangers, entry.MemberId)
			continue
		}
		mine := map[string][]int32{}
		if len(entry.Assignment) > 0 {
			read, err := (&sarama.SyncGroupResponse{MemberAssignment: entry.Assignment}).GetMemberAssignment()
			if err != nil {
				return cmd2.Result{Err: cmd2.Failed("GetMemberAssignment", err)}
			}
			for topic, partitions := range read.Topics {
				partitions = slices.Clone(partitions)
				if partitions == nil {
					partitions = []int32{}
				}
				slices.Sort(partitions)
				mine[topic] = partitions
			}
		}
		assignment[entry.MemberId] = mine
	}
	slices.Sort(strangers)
	return cmd2.Result{Assignment: assignment, Adapted: cmd2.StrangersNote(strangers)}
}
