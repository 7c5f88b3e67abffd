package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// problem is assigncheck's consumer problem document (formats/documents.py): what the group's members sent and
// what the metadata says. Fields kgo's leader never reads (lag offsets) are not kept.
type problem struct {
	Format         int                   `json:"format"`
	Kind           string                `json:"kind"`
	GroupType      string                `json:"group_type"`
	Protocol       string                `json:"protocol"`
	Topics         map[string]int32      `json:"topics"`
	Members        []member              `json:"members"`
	PartitionRacks map[string][][]string `json:"partition_racks"`
	Lag            json.RawMessage       `json:"lag"`
	Note           json.RawMessage       `json:"note"`
	Finding        json.RawMessage       `json:"finding"`
}

type member struct {
	ID           string             `json:"id"`
	Subscription []string           `json:"subscription"`
	Owned        map[string][]int32 `json:"owned"`
	Generation   *int32             `json:"generation"`
	InstanceID   *string            `json:"instance_id"`
	Rack         *string            `json:"rack"`
}

func parseProblem(doc []byte) (*problem, error) {
	var p problem
	decoder := json.NewDecoder(strings.NewReader(string(doc)))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&p); err != nil {
		return nil, fmt.Errorf("problem: %v", err)
	}
	switch {
	case p.Format != 1:
		return nil, fmt.Errorf("problem.format: must be 1, got %d", p.Format)
	case p.Kind != "" && p.Kind != "consumer":
		return nil, fmt.Errorf("problem.kind: franz-go's balancers assign consumer groups, not %q", p.Kind)
	case p.GroupType != "" && p.GroupType != "classic":
		return nil, fmt.Errorf("problem.group_type: franz-go's balancers lead classic groups, not %q", p.GroupType)
	case p.Topics == nil:
		return nil, errors.New("problem.topics: is missing")
	}
	return &p, nil
}

// group is what kgo's leader holds when it balances: the JoinGroup response's members (their metadata as
// their own consumers encoded it, sorted as MemberBalancer is promised) and the partition count of every
// topic the metadata knows.
type group struct {
	members []kmsg.JoinGroupResponseMember
	counts  map[string]int32
	adapted string
}

// join builds the group afresh (new metadata bytes every time: MemberBalancer may rewrite them in place).
func (p *problem) join(balancer kgo.GroupBalancer) group {
	members := make([]kmsg.JoinGroupResponseMember, len(p.Members))
	anyRack := false
	for i, m := range p.Members {
		topics := slices.Clone(m.Subscription)
		sort.Strings(topics) // kgo's consumer sorts its topics before JoinGroupMetadata
		owned := make(map[string][]int32, len(m.Owned))
		for topic, partitions := range m.Owned {
			partitions = slices.Clone(partitions)
			slices.Sort(partitions) // and the partitions it was assigned
			owned[topic] = partitions
		}
		generation := int32(-1) // a consumer that has not joined yet knows no generation
		if m.Generation != nil {
			generation = *m.Generation
		}
		metadata := balancer.JoinGroupMetadata(topics, owned, generation)
		if m.Rack != nil && *m.Rack != "" {
			// KIP-881: the consumer adds its configured rack to the metadata the balancer made (unless
			// the balancer set one), raising the version to 3 where the field exists.
			anyRack = true
			meta := kmsg.NewConsumerMemberMetadata()
			if err := meta.ReadFrom(metadata); err == nil && meta.Rack == nil {
				rack := *m.Rack
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
	if anyRack && len(p.PartitionRacks) > 0 {
		notes = append(notes, "rack-blind: kgo balances by rack only with the client option BalanceRacks, "+
			"which its leader sets and a GroupBalancer cannot be given")
	}
	return group{members: members, counts: p.Topics, adapted: strings.Join(notes, "; ")}
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
