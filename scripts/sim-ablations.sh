#!/bin/sh
# sim-ablations.sh: run experiments/sim-ablations.yaml offline and tabulate, per ablation that removes
# information from the prompt, the EX change on the questions that need it (McNemar p). The numbers
# describe the simulated model's behaviour model (package sim), not the methods.
#   scripts/sim-ablations.sh [RUN_DIR]      (default runs/sim-ablations)
set -e
dir=${1:-runs/sim-ablations}
go run ./cmd/t2sbench run experiments/sim-ablations.yaml --quiet --out "$dir"
go run ./scripts/simablate "$dir"
