// Package gogate gates the ordered balancer with assigncheck from go test: the balancer passes, and the same
// balancer with a planted bug fails.
package gogate
