"""Running an assignor: one call under H7's CPU budget and hang limit (`calls`), the checks that call it again
(`assignor_check.check_assignor`: H8, fixpoint, exact, cooperative rounds), CPU time at production size
(`scale`), the garbage collector kept out of timed calls (`gc`), and the process-wide stop flag that Ctrl-C and
SIGTERM set and every long loop checks (`interrupt`)."""
