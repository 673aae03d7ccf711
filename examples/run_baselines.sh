#!/usr/bin/env bash
# The long runs of docs/baselines.md, one after another on one core, in the background:
#
#     nohup bash examples/run_baselines.sh > runs/queue.log 2>&1 &
#
# Start it again after any stop (a reboot, a session's end, `kill -TERM` of the trainer): each run resumes
# from its last checkpoint and runs that have reached their steps are skipped. A run stopped by a signal
# checkpoints and exits with status 3, and the queue stops with it; any other failure stops it too.
# PHASE=A or PHASE=B runs one phase only; PYTHON and ROOT (the folder of run directories) may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
ROOT=${ROOT:-runs}
PHASE=${PHASE:-AB}
mkdir -p "$ROOT"

run() {  # map masks seed env-steps
    local dir="$ROOT/$1__$2__s$3"
    if [ -f "$dir/checkpoint.pt" ]; then
        "$PYTHON" -m sc2env.baselines.ppo --resume "$dir" --total-timesteps "$4"
    else
        "$PYTHON" -m sc2env.baselines.ppo --map "$1" --masks "$2" --seed "$3" --total-timesteps "$4" --run-dir "$dir"
    fi
}

# Phase A: does the agent learn each mini-game? Full masks, seed 1, 16×16 screen and minimap.
if [[ $PHASE == *A* ]]; then
    run MoveToBeacon full 1 300000
    run CollectMineralShards full 1 500000
    run DefeatRoaches full 1 500000
    run FindAndDefeatZerglings full 1 500000
    run DefeatZerglingsAndBanelings full 1 500000
    run CollectMineralsAndGas full 1 500000
    run BuildMarines full 1 500000
fi

# Phase B: what are the masks worth? Three mask modes, three seeds, on MoveToBeacon (its full-mask seed 1
# is phase A's run, with the same budget: skipped here once phase A has made it).
if [[ $PHASE == *B* ]]; then
    for seed in 1 2 3; do
        for masks in full function none; do
            run MoveToBeacon "$masks" "$seed" 300000
        done
    done
fi
