"""The loop of one vector-env worker process: its share of sub-envs, played in direct mode, one after another."""

from __future__ import annotations

import enum
import os
import signal
import threading
import traceback
from multiprocessing.connection import Connection
from typing import Any

from sc2env.env.shared_batch import BatchLayout, SharedBatch
from sc2env.env.step_record import StepRecord


class Command(enum.Enum):
    """What the vector env asks of a worker; the payload of each is described beside it."""

    # Observations go into the shared batch; rewards, ends and the usual info keys into the StepRecord, and
    # the pipe carries each sub-env's Leftover of its info (None when the record holds all of it).
    RESET = "reset"  # [(index, seed, options)] -> [(index, leftover)]
    STEP = "step"  # [(index, Op, action or None: in the record)] -> [(index, leftover, final)]
    CALL = "call"  # (name, args, kwargs) -> [value per sub-env]: a method's result or an attribute
    SET_ATTR = "set_attr"  # (name, [value per sub-env]) -> None
    CLOSE = "close"  # None -> None; the worker then exits
    # Every answer is ("ok", value) or ("error", (the sub-env's index or None, the exception)).


class Op(enum.Enum):
    """What a step does to one sub-env (the vector env's autoreset decides)."""

    STEP = "step"  # step with the action
    RESET = "reset"  # NEXT_STEP's step after an episode's end: reset, ignore the action
    STEP_THEN_RESET = "step_then_reset"  # SAME_STEP: step, and reset at once if that ended the episode


_POLL_PARENT_S = 1.0


def serve(
    connection: Connection,
    layout: BatchLayout,
    record_layout: BatchLayout,
    indices: list[int],
    kwargs: dict[int, dict[str, Any]],
) -> None:
    """Play the sub-envs `indices` (sub-env i made as SC2Env(**kwargs[i])) for the vector env at the other end of
    `connection` until it says CLOSE or goes away, observations into the shared batch of `layout` and results
    into the StepRecord of `record_layout`. Answers are ("ok", value) or ("error", exception)."""
    from sc2env.env.env import SC2Env  # in the worker: the parent's import state is not inherited under spawn

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the parent's to handle; it closes us
    parent = os.getppid()
    batch = SharedBatch.attach(layout)
    record = StepRecord.attach(record_layout)
    envs = {i: SC2Env(**kwargs[i]) for i in indices}
    for index, env in envs.items():  # each game decodes its observations straight into its row
        env.pack_into(batch.rows(index))
    watchdog = threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True)
    watchdog.start()
    try:
        while True:
            try:
                command, payload = connection.recv()
            except (EOFError, OSError):  # the vector env is gone
                return
            if command is Command.CLOSE:
                connection.send(("ok", None))
                return
            try:
                answer: tuple[str, Any] = ("ok", _run(command, payload, envs, record))
            except _InSubEnv as failed:  # sent to the vector env, which raises it for the sub-env named
                answer = ("error", (failed.index, _picklable(failed.error)))
            except Exception as error:
                answer = ("error", (None, _picklable(error)))
            connection.send(answer)
    finally:
        for env in envs.values():
            env.close()
            env.pack_into(None)  # its rows are views of the block: let go of them before closing it
        batch.close()
        record.close()


def _run(command: Command, payload: Any, envs: dict, record: StepRecord) -> Any:
    if command is Command.RESET:
        out = []
        for index, seed, options in payload:
            _, info = _labelled(index, envs[index].reset, seed=seed, options=options)
            out.append((index, record.put(index, 0.0, False, False, info)))
        return out
    if command is Command.STEP:
        return [_step(index, op, action, envs[index], record) for index, op, action in payload]
    if command is Command.CALL:
        name, args, kwargs = payload
        values = []
        for index, env in envs.items():
            value = getattr(env, name)
            values.append(_labelled(index, value, *args, **kwargs) if callable(value) else value)
        return values
    if command is Command.SET_ATTR:
        name, values = payload
        for env, value in zip(envs.values(), values, strict=True):
            setattr(env, name, value)
        return None
    raise ValueError(f"unknown worker command {command!r}")


def _step(index: int, op: Op, action: Any, env: Any, record: StepRecord) -> tuple:
    """One sub-env's step: its observation in its row of the shared batch (pack_into), its results in the
    record; (index, the leftover of its info, (final observation, final info) or None) for the pipe."""
    if op is Op.RESET:
        _, info = _labelled(index, env.reset)
        return index, record.put(index, 0.0, False, False, info), None
    if action is None:  # in the record: copied, as an env may keep what it was given
        assert record.actions is not None
        action = record.actions[index].copy()
    obs, reward, terminated, truncated, info = _labelled(index, env.step, action)
    final = None
    if op is Op.STEP_THEN_RESET and (terminated or truncated):
        final = ({key: array.copy() for key, array in obs.items()}, info)  # the reset overwrites the row
        _, info = _labelled(index, env.reset)
    return index, record.put(index, float(reward), bool(terminated), bool(truncated), info), final


class _InSubEnv(Exception):
    """An error of sub-env `index`'s SC2Env."""

    def __init__(self, index: int, error: Exception) -> None:
        super().__init__(index, error)
        self.index, self.error = index, error


def _labelled(index: int, call, *args, **kwargs):
    """call(*args, **kwargs), its error saying which sub-env raised it."""
    try:
        return call(*args, **kwargs)
    except Exception as error:
        raise _InSubEnv(index, error) from error


def _picklable(error: Exception) -> Exception:
    """`error` if it survives pickling (sc2env's errors do), else a RuntimeError with its text and traceback."""
    import pickle

    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        text = "".join(traceback.format_exception(error))
        return RuntimeError(f"{type(error).__name__} in a vector-env worker: {error}\n{text}")


def _exit_when_orphaned(parent: int) -> None:
    """End this worker when its vector env's process dies without closing it (no stray processes)."""
    stop = threading.Event()
    while not stop.wait(_POLL_PARENT_S):
        if os.getppid() != parent:
            os._exit(0)
