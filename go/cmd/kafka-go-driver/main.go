// Command kafka-go-driver runs segmentio/kafka-go's group balancers (RangeGroupBalancer, RoundRobinGroupBalancer
// and RackAffinityGroupBalancer, unmodified) as an assigncheck cmd2: target.
//
//	kafka-go-driver BALANCER
//
// BALANCER is range, roundrobin or rack-affinity; every member configures its own, with its client.rack, and
// each problem is led as kafka-go's ConsumerGroup leader leads a group (package kafkago).
package main

import (
	"fmt"
	"os"

	"github.com/assigncheck/assigncheck/go/cmd2"
	"github.com/assigncheck/assigncheck/go/kafkago"
)

const usage = "usage: kafka-go-driver range|roundrobin|rack-affinity"

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	problem := ""
	switch {
	case len(args) == 0:
		problem = "no balancer named; " + usage
	case len(args) > 1:
		problem = fmt.Sprintf("one balancer, got %d arguments; %s", len(args), usage)
	case len(args[0]) > 1 && args[0][0] == '-':
		problem = fmt.Sprintf("unknown flag %s; %s", args[0], usage)
	}
	newBalancer, ok := kafkago.Balancers[args0(args)]
	if problem == "" && !ok {
		problem = fmt.Sprintf("unknown balancer %q: range, roundrobin or rack-affinity", args[0])
	}
	if problem != "" { // bad usage: one line, exit 2
		fmt.Fprintln(os.Stderr, "kafka-go-driver: "+problem)
		return 2
	}
	if err := cmd2.ServeIO(os.Stdin, os.Stdout, kafkago.Leader(newBalancer)); err != nil {
		fmt.Fprintf(os.Stderr, "kafka-go-driver: %v\n", err)
		return 1
	}
	return 0
}

func args0(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
