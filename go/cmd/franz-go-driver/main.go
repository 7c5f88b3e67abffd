// Command franz-go-driver runs franz-go's group balancers (kgo's RoundRobinBalancer, RangeBalancer,
// StickyBalancer and CooperativeStickyBalancer, unmodified) as an assigncheck target, or times them.
//
//	franz-go-driver BALANCER                        a cmd2: target: JSON lines on stdin and stdout
//	franz-go-driver -bench [-warmup N] [-calls N] BALANCER FILE...
//
// BALANCER is range, roundrobin, sticky or cooperative-sticky. Each problem is led as kgo's group leader leads
// a group (package franzgo). -bench times Balance on each problem file and writes one JSON line per file: the
// CPU and wall milliseconds of each timed call and the last call's plan.
package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/assigncheck/assigncheck/go/cmd2"
	"github.com/assigncheck/assigncheck/go/franzgo"
)

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
	newBalancer, ok := franzgo.Balancers[args[0]]
	if !ok {
		return usageError("unknown balancer %q: range, roundrobin, sticky or cooperative-sticky", args[0])
	}
	balancer := newBalancer() // one for the target's life, as a consumer keeps the balancers it was configured with
	if bench {
		if len(args) == 1 {
			return usageError("-bench needs problem files; %s", usage)
		}
		if err := franzgo.Bench(balancer, args[1:], warmup, calls, os.Stdout); err != nil {
			var bad *franzgo.InputError
			if errors.As(err, &bad) {
				return usageError("%v", bad)
			}
			fmt.Fprintf(os.Stderr, "franz-go-driver: %v\n", err)
			return 1
		}
		return 0
	}
	if len(args) > 1 {
		return usageError("problem files are read only with -bench; %s", usage)
	}
	if err := cmd2.ServeIO(os.Stdin, os.Stdout, franzgo.Leader(balancer)); err != nil {
		fmt.Fprintf(os.Stderr, "franz-go-driver: %v\n", err)
		return 1
	}
	return 0
}
