#!/usr/bin/env bash
# The long runs of docs/baselines.md, one after another on one core, in the background:
#
#     nohup bash examples/run_baselines.sh > runs/queue.log 2>&1 &
#
# Start it again after any stop (a reboot, a session's end, `kill -TERM` of the trainer): each run resumes
# from its last checkpoint and runs that have reached their steps are skipped. A run stopped by a signal
# checkpoints and exits with status 3, and the queue stops with it; any other failure stops it too.
# PHASE=A, PHASE=B or PHASE=C runs one phase only (one queue per core: PHASE=A and PHASE=B, then PHASE=C);
# SEEDS picks phase B's seeds; PYTHON and ROOT (the folder of run directories) may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
ROOT=${ROOT:-runs}
PHASE=${PHASE:-ABC}
mkdir -p "$ROOT"

run() {  # map masks seed env-steps [tag: a suffix of the run's folder]
    local dir="$ROOT/$1__$2__s$3${5:+__$5}"
    if [ -f "$dir/checkpoint.pt" ]; then
        "$PYTHON" -m sc2env.baselines.ppo --resume "$dir" --total-timesteps "$4"
    else
        "$PYTHON" -m sc2env.baselines.ppo --map "$1" --masks "$2" --seed "$3" --total-timesteps "$4" --run-dir "$dir"
    fi
}

extend() {  # map masks seed env-steps: go on from a finished short run, in a folder of its own
    local short="$ROOT/$1__$2__s$3__short" long="$ROOT/$1__$2__s$3"
    [ -d "$long" ] || cp -a "$short" "$long"
    run "$1" "$2" "$3" "$4"
}

# Phase A: does the agent learn each mini-game? Full masks, seed 1, 16×16 screen and minimap: first a short
# budget that fits a session of this 2-core machine (DefeatRoaches and CollectMineralShards at that budget are
# phase B's full-mask runs), then the long ones.
if [[ $PHASE == *A* ]]; then
    for map in BuildMarines DefeatZerglingsAndBanelings FindAndDefeatZerglings CollectMineralsAndGas; do
        run "$map" full 1 50000 short
    done
    run MoveToBeacon full 1 300000
    run CollectMineralShards full 1 500000
fi

# Phase B: what are the masks worth? Gym-µRTS's ablation: no masks (an unavailable choice plays a no-op),
# function-id masks only, full argument masks; two seeds on two mini-games, the short budget.
if [[ $PHASE == *B* ]]; then
    for seed in ${SEEDS:-1 2}; do
        for map in CollectMineralShards DefeatRoaches; do
            for masks in full function none; do
                run "$map" "$masks" "$seed" 50000 short
            done
        done
    done
fi

# Phase C: longer budgets for the two maps still climbing at 50,000 steps, each going on from its short run's
# checkpoint in a folder of its own (the learning rate's linear decay is re-planned over the new budget).
# MoveToBeacon is not extended: the scripted agent, which walks straight to each beacon, scores 25.7 there.
if [[ $PHASE == *C* ]]; then
    extend DefeatZerglingsAndBanelings full 1 300000
    extend DefeatRoaches full 1 250000
    for run in DefeatZerglingsAndBanelings__full__s1 DefeatRoaches__full__s1; do
        "$PYTHON" -m sc2env.baselines.evaluate "$ROOT/$run" --episodes 100
    done
fi
