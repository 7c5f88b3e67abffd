"""The gate and the `assigncheck` command: the CLI (`cli`, one module per verb in `commands`), the gate's run
(`pipeline`) over its stages (`stages`) within a profile's budgets (`context`), what the stages produce
(`results`), the properties stage's H8 sample across processes (`h8_sample`), reports (`reports`, `console`,
`plots`), and the pytest plugin (`pytest_plugin`). A finding's filing, confirmation and replay are
`assigncheck.findings`'. Nothing imports `ci`."""
