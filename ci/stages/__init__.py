"""The gate's stages, in the order they run. Each module has `run(target, ctx) -> StageResult` (the campaign
stage: `run(targets, ctx) -> list[StageResult]`, one Spark campaign for every target)."""

STAGES = ("properties", "proofs", "fuzz", "campaign", "scale")
