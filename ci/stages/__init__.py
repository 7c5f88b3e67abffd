"""The gate's stages, in the order they run. Each module has `run(target, ctx) -> StageResult` (the campaign
stage: `run(targets, ctx) -> list[StageResult]`, one Spark campaign for every target)."""

STAGES = ("properties", "proofs", "fuzz", "campaign", "scale", "live")
# Stages the quick profile skips for every target (they report why in the gate's table).
FULL_ONLY = ("live",)
