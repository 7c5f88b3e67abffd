package saramabalance

import (
	"bytes"
	"slices"
	"testing"

	"github.com/IBM/sarama"

	"github.com/assigncheck/assigncheck/go/cmd2"
)

// joined is the member's metadata as sarama's leader decodes it from the JoinGroup response.
func joined(t *testing.T, l *leader, m cmd2.Member, strategy sarama.BalanceStrategy, cooperative bool) sarama.ConsumerGroupMemberMetadata {
	t.Helper()
	metadata, err := l.subscription(&m, strategy, cooperative)
	if err != nil {
		t.Fatal(err)
	}
	members, err := (&sarama.JoinGroupResponse{Members: []sarama.GroupMember{{MemberId: m.ID, Metadata: metadata}}}).GetMembers()
	if err != nil {
		t.Fatal(err)
	}
	return members[m.ID]
}

func rejoining() cmd2.Member {
	generation := int32(4)
	return cmd2.Member{ID: "a", Subscription: []string{"u", "t"}, Owned: map[string][]int32{"u": {1}, "t": {2, 0}},
		Generation: &generation}
}

func TestACooperativeMemberSendsWhatItOwnsAndItsGenerationFromVersion3_2(t *testing.T) {
	for _, c := range []struct {
		version    sarama.KafkaVersion
		metadata   int16
		generation int32
	}{{sarama.DefaultVersion, 1, 0}, {sarama.V3_2_0_0, 2, 4}, {sarama.V2_1_0_0, 0, 0}} {
		l := newLeader(sarama.NewBalanceStrategyCooperativeSticky, []Option{WithVersion(c.version)})
		meta := joined(t, l, rejoining(), l.newStrategy(), true)
		if meta.Version != c.metadata || meta.GenerationID != c.generation || !slices.Equal(meta.Topics, []string{"u", "t"}) {
			t.Errorf("%s: version %d, generation %d, topics %v", c.version, meta.Version, meta.GenerationID, meta.Topics)
		}
		owned := len(meta.OwnedPartitions) == 2 && meta.OwnedPartitions[0].Topic == "t" &&
			slices.Equal(meta.OwnedPartitions[0].Partitions, []int32{0, 2})
		if owned != (c.metadata >= 1) {
			t.Errorf("%s: owned partitions %v", c.version, meta.OwnedPartitions)
		}
		// the strategy's SubscriptionUserData carries the generation OnAssignment gave it: a bare int32
		if !bytes.Equal(meta.UserData, []byte{0, 0, 0, 4}) {
			t.Errorf("%s: user data %v", c.version, meta.UserData)
		}
	}
}

func TestAnEagerMemberRejoinsHoldingNothingWithItsAssignmentDataAsUserData(t *testing.T) {
	l := newLeader(sarama.NewBalanceStrategySticky, []Option{WithVersion(sarama.V3_2_0_0)})
	strategy := l.newStrategy()
	member := rejoining()
	delete(member.Owned, "u") // one topic: the user data encodes a map, in Go's map order
	meta := joined(t, l, member, strategy, false)
	want, err := strategy.AssignmentData("a", map[string][]int32{"t": {0, 2}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.OwnedPartitions) != 0 || meta.GenerationID != -1 || !bytes.Equal(meta.UserData, want) {
		t.Errorf("owned %v, generation %d, user data %v (want %v)", meta.OwnedPartitions, meta.GenerationID,
			meta.UserData, want)
	}
	fresh := joined(t, l, cmd2.Member{ID: "b", Subscription: []string{"t"}}, strategy, false)
	if fresh.UserData != nil {
		t.Errorf("a new member's user data %v", fresh.UserData)
	}
}

func TestAStrategyServedAloneIsToldEachMembersOwnPreviousAssignment(t *testing.T) {
	shared := sarama.NewBalanceStrategyCooperativeSticky()
	l := newLeader(func() sarama.BalanceStrategy { return shared }, nil)
	l.shared = true
	joined(t, l, rejoining(), shared, true)
	// a member that has not joined gets the state of a new strategy (generation -1), not the previous member's
	if meta := joined(t, l, cmd2.Member{ID: "b", Subscription: []string{"t"}}, shared, true); !bytes.Equal(meta.UserData, []byte{255, 255, 255, 255}) {
		t.Errorf("a new member's user data %v", meta.UserData)
	}
}
