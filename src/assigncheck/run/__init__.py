"""Running an assignor: one call under H7's CPU budget and hang limit (`calls`), the checks that call it again
(`checks.check_assignor`: H8, fixpoint, exact, cooperative rounds), CPU time at production size (`scale`), and
the garbage collector kept out of timed calls (`gc`)."""
