// Command ordered serves the ordered balancer to assigncheck's gate (a cmd2: target).
package main

import (
	"example.com/gogate/ordered"

	"github.com/assigncheck/assigncheck/go/franzgo"
)

func main() { franzgo.Serve(ordered.New()) }
