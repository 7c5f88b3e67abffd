// Command sarama-driver runs sarama's balance strategies (NewBalanceStrategyRange, NewBalanceStrategyRoundRobin,
// NewBalanceStrategySticky and NewBalanceStrategyCooperativeSticky, unmodified) as an assigncheck cmd2: target.
//
//	sarama-driver [-version KAFKA_VERSION] STRATEGY
//
// STRATEGY is range, roundrobin, sticky or cooperative-sticky; every member runs a strategy of its own, and
// each problem is led as sarama's consumer-group leader leads a group (package saramabalance). -version is the
// members' sarama Config.Version (sarama's DefaultVersion unless given), which decides the metadata they send.
package main

import (
	"fmt"
	"os"

	"github.com/IBM/sarama"

	"github.com/assigncheck/assigncheck/go/cmd2"
	"github.com/assigncheck/assigncheck/go/saramabalance"
)

const usage = "usage: sarama-driver [-version KAFKA_VERSION] range|roundrobin|sticky|cooperative-sticky"

func main() {
	os.Exit(run(os.Args[1:]))
}

// usageError is bad usage: one line naming the flag or argument, exit 2.
func usageError(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "sarama-driver: "+format+"\n", args...)
	return 2
}

func run(args []string) int {
	var options []saramabalance.Option
	if len(args) > 0 && args[0] == "-version" {
		if len(args) == 1 {
			return usageError("-version needs a Kafka version, e.g. 3.6.0")
		}
		version, err := sarama.ParseKafkaVersion(args[1])
		if err != nil {
			return usageError("-version: %v", err)
		}
		options = append(options, saramabalance.WithVersion(version))
		args = args[2:]
	}
	switch {
	case len(args) == 0:
		return usageError("no strategy named; %s", usage)
	case len(args) > 1:
		return usageError("one strategy, got %d arguments; %s", len(args), usage)
	case len(args[0]) > 1 && args[0][0] == '-':
		return usageError("unknown flag %s; %s", args[0], usage)
	}
	newStrategy, ok := saramabalance.Strategies[args[0]]
	if !ok {
		return usageError("unknown strategy %q: range, roundrobin, sticky or cooperative-sticky", args[0])
	}
	if err := cmd2.ServeIO(os.Stdin, os.Stdout, saramabalance.Leader(newStrategy, options...)); err != nil {
		fmt.Fprintf(os.Stderr, "sarama-driver: %v\n", err)
		return 1
	}
	return 0
}
