// Command franz-go-member is one member of an assigncheck live group: franz-go's kgo consumer (the version
// pinned in the module's go.mod) subscribed to a group, writing the JSON-lines timeline of its rebalance
// callbacks that src/assigncheck/live/member.py's docstring defines, and taking the same commands on stdin
// ("subscribe a,b", "slow SECONDS", "leave").
//
//	franz-go-member SETTINGS_JSON
//
// SETTINGS_JSON is member.py's: {"protocol": "classic"|"consumer", "assignor", "name", "group", "bootstrap",
// "log", "topics": [...], "instance_id": str|null}. Classic: the assignor is a kgo balancer (range, roundrobin,
// sticky, cooperative-sticky) run by the group's leader. KIP-848 ("consumer"): kgo's ServerSideBalancer, which
// names the broker's assignor by the balancer it is given (RangeBalancer: range, CooperativeStickyBalancer:
// uniform), so the assignor is range or uniform.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assigncheck/assigncheck/go/franzgo"
)

type settings struct {
	Protocol   string   `json:"protocol"`
	Assignor   string   `json:"assignor"`
	Name       string   `json:"name"`
	Group      string   `json:"group"`
	Bootstrap  string   `json:"bootstrap"`
	Log        string   `json:"log"`
	Topics     []string `json:"topics"`
	InstanceID *string  `json:"instance_id"`
}

var classic = franzgo.Balancers

// server maps a KIP-848 assignor name to the balancer from which kgo derives it (manage848 in consumer_group_848.go).
var server = map[string]func() kgo.GroupBalancer{
	"range":   kgo.RangeBalancer,
	"uniform": kgo.CooperativeStickyBalancer,
}

// monotonic is CLOCK_MONOTONIC in seconds: the clock of the Python members' time.monotonic() and of Java's
// System.nanoTime(), so every member's timeline and the harness's kill times compare (Go's time hides its own).
func monotonic() float64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0) // 1: CLOCK_MONOTONIC
	return float64(ts.Sec) + float64(ts.Nsec)/1e9
}

type timeline struct {
	mu     sync.Mutex
	out    *os.File
	client atomic.Pointer[kgo.Client]
	slowNs atomic.Int64
}

func (t *timeline) write(event string, partitions map[string][]int32) {
	pairs := [][2]any{}
	for topic, ps := range partitions {
		for _, p := range ps {
			pairs = append(pairs, [2]any{topic, p})
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i][0] != pairs[j][0] {
			return pairs[i][0].(string) < pairs[j][0].(string)
		}
		return pairs[i][1].(int32) < pairs[j][1].(int32)
	})
	line := map[string]any{"t": monotonic(), "event": event, "partitions": pairs, "generation": nil, "member_id": nil}
	if cl := t.client.Load(); cl != nil {
		member, generation := cl.GroupMetadata() // under KIP-848 the generation is the member epoch
		if member != "" {
			line["member_id"] = member
		}
		if generation >= 0 {
			line["generation"] = generation
		}
	}
	encoded, _ := json.Marshal(line)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out.Write(append(encoded, '\n'))
}

func (t *timeline) slow() { time.Sleep(time.Duration(t.slowNs.Load())) }

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: franz-go-member SETTINGS_JSON")
		os.Exit(2)
	}
	var s settings
	if err := json.Unmarshal([]byte(os.Args[1]), &s); err != nil {
		fmt.Fprintf(os.Stderr, "franz-go-member: SETTINGS_JSON: %v\n", err)
		os.Exit(2)
	}
	balancers := classic
	if s.Protocol == "consumer" {
		balancers = server
	}
	balancer, ok := balancers[s.Assignor]
	if !ok {
		fmt.Fprintf(os.Stderr, "franz-go-member: no %s assignor %q\n", s.Protocol, s.Assignor)
		os.Exit(2)
	}
	out, err := os.OpenFile(s.Log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "franz-go-member: %v\n", err)
		os.Exit(1)
	}
	log := &timeline{out: out}
	opts := []kgo.Opt{
		kgo.SeedBrokers(s.Bootstrap), kgo.ClientID(s.Name), kgo.ConsumerGroup(s.Group),
		kgo.ConsumeTopics(s.Topics...), kgo.Balancers(balancer()), kgo.DisableAutoCommit(),
		kgo.SessionTimeout(6 * time.Second), kgo.HeartbeatInterval(500 * time.Millisecond),
		// a topic's new partitions reach the group within a second, as for the other members
		kgo.MetadataMaxAge(time.Second), kgo.MetadataMinAge(250 * time.Millisecond),
		kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelInfo, nil)),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, assigned map[string][]int32) {
			log.write("assigned", assigned)
			log.slow()
		}),
		// revoked and lost are written as the callback returns: the member may use the partitions inside it
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, revoked map[string][]int32) {
			log.slow()
			log.write("revoked", revoked)
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, lost map[string][]int32) {
			log.slow()
			log.write("lost", lost)
		}),
	}
	if s.Protocol == "consumer" {
		opts = append(opts, kgo.ServerSideBalancer())
	}
	if s.InstanceID != nil {
		opts = append(opts, kgo.InstanceID(*s.InstanceID))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "franz-go-member: %v\n", err)
		os.Exit(1)
	}
	log.client.Store(cl)
	log.write("started", nil)

	commands := make(chan string, 16)
	go func() {
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			commands <- strings.TrimSpace(in.Text())
		}
		commands <- "leave" // the harness closed our stdin: leave as a member does on shutdown
	}()
	subscribed := append([]string(nil), s.Topics...)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		cl.PollRecords(ctx, 1000)
		cancel()
		var command string
		select {
		case command = <-commands:
		default:
			continue
		}
		op, arg, _ := strings.Cut(command, " ")
		switch op {
		case "leave":
			cl.Close()
			log.write("closed", nil)
			os.Exit(0)
		case "subscribe":
			wanted := strings.Split(arg, ",")
			cl.AddConsumeTopics(missing(wanted, subscribed)...)
			cl.PurgeTopicsFromConsuming(missing(subscribed, wanted)...)
			subscribed = wanted
		case "slow":
			if seconds, err := strconv.ParseFloat(arg, 64); err == nil {
				log.slowNs.Store(int64(seconds * 1e9))
			}
		}
	}
}

// missing is what of `want` is not in `have`.
func missing(want, have []string) []string {
	var out []string
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			out = append(out, w)
		}
	}
	return out
}
