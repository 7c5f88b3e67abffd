"""The gate and the `assigncheck` command: the CLI (`cli`, one module per verb in `commands`), the gate's run
(`pipeline`) over its stages (`stages`) within a profile's budgets (`context`), findings confirmed
(`findings`), reports (`reports`, `console`), and the pytest plugin (`pytest_plugin`). Nothing imports `ci`."""
