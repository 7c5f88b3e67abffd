"""A finding exported as a standalone test in its target's own language and test framework (`assigncheck export`):
the rules in words every language's test states (`rules`), what an export knows of its finding and computes for it
(`case`), which language reaches which target (`reach`), one writer per framework (`junit`, `gotest`, `pytest_file`,
`node`), and the command's one entry point (`write`)."""
