// Command franz-go-driver runs franz-go's group balancers (kgo's RoundRobinBalancer, RangeBalancer,
// StickyBalancer and CooperativeStickyBalancer, unmodified) as an assigncheck target, or times them.
//
//	franz-go-driver BALANCER                        a cmd2: target: JSON lines on stdin and stdout
//	franz-go-driver -bench [-warmup N] [-calls N] BALANCER FILE...
//
// BALANCER is range, roundrobin, sticky or cooperative-sticky. Each problem is led as kgo's group leader leads
// a group: every member's JoinGroup metadata is what its own kgo consumer sends (the balancer's
// JoinGroupMetadata over its sorted topics, previously assigned partitions and generation, its rack added as
// the consumer adds it), the members sorted as GroupBalancer.MemberBalancer is promised, then
// MemberBalancer(members), Balance over the partition counts of the topics it returned that exist, and the
// IntoSyncAssignment plan read back with the balancer's own ParseSyncAssignment, as each member reads its
// SyncGroup answer.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/twmb/franz-go/pkg/kgo"
)

// balancers are the exported constructors, by the protocol name each balancer registers.
var balancers = map[string]func() kgo.GroupBalancer{
	"range":              kgo.RangeBalancer,
	"roundrobin":         kgo.RoundRobinBalancer,
	"sticky":             kgo.StickyBalancer,
	"cooperative-sticky": kgo.CooperativeStickyBalancer,
}

const usage = "usage: franz-go-driver [-bench [-warmup N] [-calls N]] range|roundrobin|sticky|cooperative-sticky [FILE...]"

func main() {
	os.Exit(run(os.Args[1:]))
}

// usageError is bad usage: one line naming the flag or argument, exit 2.
func usageError(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "franz-go-driver: "+format+"\n", args...)
	return 2
}

func run(args []string) int {
	bench, warmup, calls := false, 3, 5
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		flag := args[0]
		args = args[1:]
		switch flag {
		case "-bench":
			bench = true
		case "-warmup", "-calls":
			if len(args) == 0 {
				return usageError("%s needs a number", flag)
			}
			n, err := strconv.Atoi(args[0])
			if err != nil || n < 0 || (flag == "-calls" && n == 0) {
				return usageError("%s must be a whole number%s, got %q", flag,
					map[bool]string{true: " above 0", false: ""}[flag == "-calls"], args[0])
			}
			if flag == "-warmup" {
				warmup = n
			} else {
				calls = n
			}
			args = args[1:]
		default:
			return usageError("unknown flag %s; %s", flag, usage)
		}
	}
	if len(args) == 0 {
		return usageError("no balancer named; %s", usage)
	}
	newBalancer, ok := balancers[args[0]]
	if !ok {
		return usageError("unknown balancer %q: range, roundrobin, sticky or cooperative-sticky", args[0])
	}
	balancer := newBalancer() // one for the target's life, as a consumer keeps the balancers it was configured with
	if bench {
		if len(args) == 1 {
			return usageError("-bench needs problem files; %s", usage)
		}
		return benchFiles(balancer, args[1:], warmup, calls)
	}
	if len(args) > 1 {
		return usageError("problem files are read only with -bench; %s", usage)
	}
	if err := serve(balancer, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "franz-go-driver: %v\n", err)
		return 1
	}
	return 0
}

// request is one cmd2: request line.
type request struct {
	Format  int             `json:"format"`
	ID      *int64          `json:"id"`
	Problem json.RawMessage `json:"problem"`
}

// answer is one cmd2: answer line: an assignment, or an error with where it was raised.
type answer struct {
	Format     int                            `json:"format"`
	ID         int64                          `json:"id"`
	Assignment *map[string]map[string][]int32 `json:"assignment,omitempty"` // a pointer: {} for an empty group
	Error      string                         `json:"error,omitempty"`
	Exception  string                         `json:"exception,omitempty"`
	Frame      string                         `json:"frame,omitempty"`
	Adapted    string                         `json:"adapted,omitempty"`
}

// serve answers requests one line at a time until its input ends.
func serve(balancer kgo.GroupBalancer, in io.Reader, out io.Writer) error {
	reader := bufio.NewReaderSize(in, 1<<20)
	writer := bufio.NewWriterSize(out, 1<<20)
	encoder := json.NewEncoder(writer) // one line per answer
	for {
		line, err := reader.ReadBytes('\n')
		if len(line) > 0 {
			if err := encoder.Encode(handle(balancer, line)); err != nil {
				return err
			}
			if err := writer.Flush(); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func handle(balancer kgo.GroupBalancer, line []byte) answer {
	var req request
	if err := json.Unmarshal(line, &req); err != nil || req.Format != 2 || req.ID == nil || req.Problem == nil {
		why := "a request is {\"format\": 2, \"id\": N, \"problem\": {...}}"
		if err != nil {
			why = err.Error()
		}
		return answer{Format: 2, ID: -1, Error: "bad request: " + why, Exception: "request"}
	}
	a := answer{Format: 2, ID: *req.ID}
	problem, err := parseProblem(req.Problem)
	if err != nil {
		a.Error, a.Exception = err.Error(), "problem"
		return a
	}
	group := problem.join(balancer)
	a.Adapted = group.adapted
	result := lead(balancer, group)
	if result.err != nil {
		a.Error, a.Exception, a.Frame = result.err.Error(), result.exception, result.frame
		return a
	}
	a.Assignment = &result.assignment
	if result.adapted != "" {
		a.Adapted = join(a.Adapted, result.adapted)
	}
	return a
}

func join(notes ...string) string {
	out := ""
	for _, n := range notes {
		if n != "" && out != "" {
			out += "; "
		}
		out += n
	}
	return out
}
