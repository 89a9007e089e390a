"""What every turn runs within, below the stages that use it: the stage list (`definition`), the ports a stage
is given (`deps`), the turn's time budget (`budget`) and its claim (`idempotency`). The pipeline that walks the
stages (focal.pipeline) sits above the stages; this sits below them and below the building blocks."""
