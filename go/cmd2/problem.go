package cmd2

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Problem is assigncheck's consumer problem document (docs/TARGETS.md, "The problem document"): what the
// group's members sent and what the leader's metadata says. The lag offsets, the note and the finding are kept
// as read: no client-side leader reads them.
type Problem struct {
	Format    int    `json:"format"`
	Kind      string `json:"kind,omitempty"`
	GroupType string `json:"group_type,omitempty"`
	// Protocol is the rebalance protocol of the group, "eager" (also when empty) or "cooperative".
	Protocol string `json:"protocol,omitempty"`
	// Topics is each topic the metadata knows, with its partition count.
	Topics map[string]int32 `json:"topics"`
	// Members are the group's members, in the order the coordinator lists them.
	Members []Member `json:"members"`
	// PartitionRacks is, per topic, the racks of each partition's replicas (KIP-881), when the problem has them.
	PartitionRacks map[string][][]string `json:"partition_racks,omitempty"`
	Lag            json.RawMessage       `json:"lag,omitempty"`
	Note           json.RawMessage       `json:"note,omitempty"`
	Finding        json.RawMessage       `json:"finding,omitempty"`
}

// Member is one member of a Problem: what its consumer sent in its JoinGroup request.
type Member struct {
	ID string `json:"id"`
	// Subscription is the topics it subscribes to; a name the metadata lacks is allowed.
	Subscription []string `json:"subscription"`
	// Owned is what it claims to own from its previous assignment: topic => partitions, as sent.
	Owned map[string][]int32 `json:"owned,omitempty"`
	// Generation is the generation of its claims; nil when unknown (a member that has not joined before).
	Generation *int32  `json:"generation,omitempty"`
	InstanceID *string `json:"instance_id,omitempty"`
	Rack       *string `json:"rack,omitempty"`
}

// GenerationOr is the member's generation, or fallback when it has none.
func (m *Member) GenerationOr(fallback int32) int32 {
	if m.Generation == nil {
		return fallback
	}
	return *m.Generation
}

// RackName is the member's client.rack, "" when it has none.
func (m *Member) RackName() string {
	if m.Rack == nil {
		return ""
	}
	return *m.Rack
}

// SortedSubscription is the member's topics in sorted order, a copy.
func (m *Member) SortedSubscription() []string {
	topics := slices.Clone(m.Subscription)
	slices.Sort(topics)
	return topics
}

// SortedOwned is a copy of the member's claims with each topic's partitions sorted.
func (m *Member) SortedOwned() map[string][]int32 {
	owned := make(map[string][]int32, len(m.Owned))
	for topic, partitions := range m.Owned {
		partitions = slices.Clone(partitions)
		slices.Sort(partitions)
		owned[topic] = partitions
	}
	return owned
}

// HasRacks reports whether both sides of KIP-881 are known: some member's rack and the replicas' racks.
func (p *Problem) HasRacks() bool {
	if len(p.PartitionRacks) == 0 {
		return false
	}
	for i := range p.Members {
		if p.Members[i].RackName() != "" {
			return true
		}
	}
	return false
}

// Cooperative reports whether the group runs the cooperative rebalance protocol.
func (p *Problem) Cooperative() bool { return p.Protocol == "cooperative" }

// ParseProblem reads one problem document, refusing (with an error naming the field) one a classic group's
// leader never meets: another kind, a broker-side group type, an unknown field.
func ParseProblem(doc []byte) (*Problem, error) {
	var p Problem
	decoder := json.NewDecoder(bytes.NewReader(doc))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&p); err != nil {
		return nil, fmt.Errorf("problem: %v", err)
	}
	switch {
	case p.Format != 1:
		return nil, fmt.Errorf("problem.format: must be 1, got %d", p.Format)
	case p.Kind != "" && p.Kind != "consumer":
		return nil, fmt.Errorf("problem.kind: a group balancer assigns consumer groups, not %q", p.Kind)
	case p.GroupType != "" && p.GroupType != "classic":
		return nil, fmt.Errorf("problem.group_type: a client's group balancer leads classic groups, not %q",
			p.GroupType)
	case p.Protocol != "" && p.Protocol != "eager" && p.Protocol != "cooperative":
		return nil, fmt.Errorf("problem.protocol: must be eager or cooperative, got %q", p.Protocol)
	case p.Topics == nil:
		return nil, errors.New("problem.topics: is missing")
	}
	for topic, count := range p.Topics {
		if count < 0 {
			return nil, fmt.Errorf("problem.topics.%s: a partition count is 0 or more, got %d", topic, count)
		}
	}
	return &p, nil
}
