"""SC2WorkerVectorEnv: games in direct mode spread over a few worker processes, observations in shared memory."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, cast

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from sc2env import errors
from sc2env.env.env import SC2Env
from sc2env.env.registration import spec_property
from sc2env.env.shared_batch import SharedBatch
from sc2env.env.step_record import Leftover, StepRecord
from sc2env.env.vector import _reset_mask, autoreset_mode_of, describe_batch
from sc2env.env.worker_process import Command, Op, serve
from sc2env.game.match_config import require_count, require_seed

# Fork, as Gymnasium's AsyncVectorEnv does where it can: a spawned worker would run the caller's main script
# again unless it is guarded by `if __name__ == "__main__"`. Workers fork before any game is started.
_START_METHOD = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
_CLOSE_WAIT_S = 10.0


class _Worker:
    """One worker process, the pipe to it and the sub-envs it plays."""

    def __init__(
        self, context, layout, record_layout, indices: list[int], kwargs: dict[int, dict[str, Any]]
    ) -> None:
        self.indices = indices
        self.connection, theirs = context.Pipe()
        self.process = context.Process(
            target=serve,
            args=(theirs, layout, record_layout, indices, kwargs),
            daemon=True,
            name="sc2env-vector-worker",
        )
        self.process.start()
        theirs.close()
        self.owed = 0  # answers sent to requests but not read yet (a Ctrl-C came before they were)
        self.broken = False  # a request was cut mid-write: the pipe is out of step for good

    def stop(self) -> None:
        """Ask it to close its games and exit; kill it if it does not in time. Idempotent."""
        if self.process.is_alive():
            try:
                self.connection.send((Command.CLOSE, None))
                if self.connection.poll(_CLOSE_WAIT_S):
                    self.connection.recv()
            except (OSError, EOFError):
                pass
            self.process.join(_CLOSE_WAIT_S)
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.connection.close()

    def describe(self) -> str:
        return f"the worker process (pid {self.process.pid}) of sub-envs {self.indices}"


class SC2WorkerVectorEnv(VectorEnv):
    """`num_envs` SC2Envs in direct mode, shared out among `workers` processes (default: one per core).

    Each step sends every worker its sub-envs' actions; a worker steps its games one after another and writes
    their observations into one block of shared memory, which step() returns as numpy arrays without copying
    them through a pipe (the arrays are the block's: the next step overwrites them; copy what you keep, or
    pass copy=True for new arrays every step, as Gymnasium's AsyncVectorEnv gives by default).
    Rewards and infos come back through the pipes. Seeds (`reset(seed=s)`: sub-env i gets s + i), the three
    autoreset modes, reset_mask, call/get_attr/set_attr and replays (`save_replay_episodes`) behave as in
    SC2VectorEnv. A worker that dies fails the step or reset with GameCrashedError naming it; the next reset()
    starts a new worker for its sub-envs. close() stops every worker and frees the shared memory.
    request_timeout_s (as for one env) bounds the wait for any worker's answer.
    """

    spec = spec_property(lambda env: env._config)

    def __init__(
        self,
        num_envs: int = 1,
        map_name: str = "MoveToBeacon",
        render_mode: str | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        workers: int | None = None,
        copy: bool = False,
        **kwargs: Any,
    ):
        self._workers: list[_Worker] = []
        self._batch: SharedBatch | None = None
        self._record: StepRecord | None = None
        require_count("num_envs", num_envs, "game")
        if workers is not None:
            require_count("workers", workers, "process")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(
                f"render_mode {render_mode!r}: the worker vector env renders 'rgb_array' or nothing"
            )
        if not isinstance(copy, bool):
            raise TypeError(f"copy must be True or False, not {copy!r}")
        self._copy = copy
        self.autoreset_mode = autoreset_mode_of(autoreset_mode)
        seed = kwargs.pop("seed", None)
        require_seed("seed", seed)
        kwargs["direct"] = True
        # Made here, never reset: its spaces, action layout and settings (no game starts until a reset()).
        probe = SC2Env(map_name, render_mode=render_mode, **kwargs)
        self._config = probe.config
        describe_batch(self, probe, num_envs, render_mode)
        self._timeout_s = probe.config.request_timeout_s
        count = min(workers or os.cpu_count() or 1, num_envs)
        self._shares = [share.tolist() for share in np.array_split(np.arange(num_envs), count)]
        self._kwargs = dict(kwargs, map_name=map_name, render_mode=render_mode)
        self._seeds = [None if seed is None else seed + i for i in range(num_envs)]
        self._context = multiprocessing.get_context(_START_METHOD)
        self._autoreset = np.zeros(num_envs, bool)
        self._lost: str | None = None
        self._started = False
        self._batch = SharedBatch.create(probe.observation_space, num_envs)
        self._record = StepRecord.create(num_envs, probe.action_space)
        self.closed = False

    # --- the VectorEnv API -------------------------------------------------------------------------

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None):
        seeds = self._seeds_of(seed)
        options = dict(options or {})
        chosen = _reset_mask(options.pop("reset_mask", None), self.num_envs)
        if chosen is not None and (not self._started or self._lost):
            raise errors.ProtocolError(
                "reset(options={'reset_mask': ...}) resets some sub-envs of a running vector env"
                f"{f' (not after {self._lost})' if self._lost else ''}: call reset() without a mask first"
            )
        self._start_workers()
        indices = range(self.num_envs) if chosen is None else np.flatnonzero(chosen)
        wanted = {int(i): (int(i), seeds[i], options or None) for i in indices}
        try:
            answers = self._ask_all(Command.RESET, lambda w: [wanted[i] for i in w.indices if i in wanted])
        except BaseException as error:
            self._lost = f"a reset() that failed ({type(error).__name__})"
            raise
        self._started, self._lost = True, None
        answered: list[tuple[int, Leftover]] = sorted(item for answer in answers.values() for item in answer)
        for index, _ in answered:
            self._autoreset[index] = False
        return self._observations(), self._infos(answered, ())

    def step(self, actions):
        if self._lost is not None or not self._started:
            raise errors.ProtocolError(
                f"step() called {f'after {self._lost}' if self._lost else 'before reset()'}: call reset() to "
                "start every sub-env's next episode (a lost worker is replaced by a new one)."
            )
        if hasattr(actions, "function") and hasattr(actions, "arguments"):
            raise errors.MalformedActionError(
                f"step() got one FunctionCall for {self.num_envs} envs: give one per sub-env, e.g. "
                f"[call] * {self.num_envs}"
            )
        if len(actions) != self.num_envs:
            raise ValueError(
                f"step() got {len(actions)} actions for {self.num_envs} envs: give one per sub-env"
            )
        ended = np.flatnonzero(self._autoreset)
        if len(ended) and self.autoreset_mode is AutoresetMode.DISABLED:
            raise errors.ProtocolError(
                f"step() called after the episodes of sub-envs {ended.tolist()} ended (autoreset_mode "
                f"DISABLED): reset them first, reset(options={{'reset_mask': mask}}) with mask[i] True for each"
            )
        same_step = self.autoreset_mode is AutoresetMode.SAME_STEP
        ops = [
            Op.RESET if self._autoreset[i] else (Op.STEP_THEN_RESET if same_step else Op.STEP)
            for i in range(self.num_envs)
        ]
        record = self._require_record()
        # One integer array of actions goes through the record (no pickling); anything else through the pipes.
        shared = record.put_action(actions)
        try:
            answers = self._ask_all(
                Command.STEP, lambda w: [(i, ops[i], None if shared else actions[i]) for i in w.indices]
            )
        except BaseException as error:
            self._lost = f"a step that failed ({type(error).__name__})"
            raise
        results = sorted(item for answer in answers.values() for item in answer)
        finals = [(index, final) for index, _, final in results if final is not None]
        infos = self._infos([(index, leftover) for index, leftover, _ in results], finals)
        rewards = record.rewards.copy()
        terminations = record.terminations.copy()
        truncations = record.truncations.copy()
        self._autoreset = (terminations | truncations) & (not same_step)
        return self._observations(), rewards, terminations, truncations, infos

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple:
        """Call a method (or read an attribute) of every sub-env, in its worker; the results come back pickled."""
        self._start_workers()
        answers = self._ask_all(Command.CALL, lambda w: (name, args, kwargs))
        return self._in_order(answers)

    def get_attr(self, name: str) -> tuple:
        return self.call(name)

    def set_attr(self, name: str, values: Any) -> None:
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"set_attr got {len(values)} values for {self.num_envs} envs")
        self._start_workers()
        self._ask_all(Command.SET_ATTR, lambda w: (name, [values[i] for i in w.indices]))

    def action_masks(self) -> np.ndarray:
        """(num_envs, mask length) bool: each sub-env's current flat action mask (for MaskablePPO)."""
        return np.stack(self.call("action_masks"))

    def render(self):
        return self.call("render")

    @property
    def np_random_seed(self) -> tuple[int, ...]:  # type: ignore[override]  # one per sub-env, as SyncVectorEnv's
        return self.get_attr("np_random_seed")

    def close_extras(self, **kwargs: Any) -> None:
        workers, self._workers = self._workers, []
        try:
            for worker in workers:
                worker.stop()
        finally:
            if self._batch is not None:
                self._batch.close()
                self._batch = None
            if self._record is not None:
                self._record.close()
                self._record = None

    # --- internals ---------------------------------------------------------------------------------

    def _start_workers(self) -> None:
        """Start the workers not running (all at first; after a crash, the lost one's replacement)."""
        if self._batch is None:
            raise errors.ProtocolError("this vector env is closed: make a new one")
        if not self._workers:
            self._workers = [self._new_worker(share) for share in self._shares]
            return
        for k, worker in enumerate(self._workers):
            if not self._settled(worker):
                worker.stop()
                self._workers[k] = self._new_worker(worker.indices)

    def _settled(self, worker: _Worker) -> bool:
        """Whether `worker` is alive and in step, after reading the answers a Ctrl-C left unread."""
        while worker.owed and worker.process.is_alive() and not worker.broken:
            if not worker.connection.poll(self._timeout_s):
                return False
            try:
                worker.connection.recv()
            except (EOFError, OSError):
                return False
            worker.owed -= 1
        return worker.process.is_alive() and not worker.broken

    def _new_worker(self, indices: list[int]) -> _Worker:
        assert self._batch is not None
        kwargs = {i: dict(self._kwargs, seed=self._seeds[i]) for i in indices}  # each sub-env its own seed
        return _Worker(self._context, self._batch.layout, self._require_record().layout, indices, kwargs)

    def _require_record(self) -> StepRecord:
        if self._record is None:
            raise errors.ProtocolError("this vector env is closed: make a new one")
        return self._record

    def _infos(
        self, answered: Sequence[tuple[int, Leftover]], finals: Sequence[tuple[int, tuple]]
    ) -> dict[str, Any]:
        """Gymnasium's batched infos of the sub-envs answered: the record's columns, then what the pipes
        brought (each sub-env's leftover, and SAME_STEP's final observation and info)."""
        infos = self._require_record().infos(self.num_envs, [index for index, _ in answered])
        for index, (final_obs, final_info) in finals:
            infos = self._add_info(infos, {"final_obs": final_obs, "final_info": final_info}, index)
        for index, leftover in answered:
            if leftover:
                infos = self._add_info(infos, leftover, index)
        return infos

    def _ask_all(self, command: Command, payload_of) -> dict[int, Any]:
        """Send `command` to every worker (payload_of(worker)), then gather every answer as it arrives."""
        waiting: dict[Connection, _Worker] = {}
        for worker in self._workers:
            try:
                worker.broken = True  # until the whole request is written
                worker.connection.send((command, payload_of(worker)))
                worker.broken = False
            except (OSError, ValueError):
                raise self._lost_worker(worker, "it was not there to take the request") from None
            worker.owed += 1
            waiting[worker.connection] = worker
        answers: dict[int, Any] = {}
        failure: BaseException | None = None
        deadline = time.monotonic() + self._timeout_s
        while waiting:
            ready = wait(list(waiting), max(deadline - time.monotonic(), 0))
            if not ready:
                worker = next(iter(waiting.values()))
                worker.process.kill()
                raise errors.RequestTimeoutError(
                    f"{worker.describe()} gave no answer within {self._timeout_s:g} s; it was stopped and the "
                    "next reset() starts a new one (raise request_timeout_s if games are that slow)"
                )
            for connection in ready:
                worker = waiting.pop(cast(Connection, connection))
                try:
                    status, value = cast(Connection, connection).recv()
                    worker.owed -= 1
                except (EOFError, OSError):
                    failure = failure or self._lost_worker(worker, "it died while working")
                    continue
                if status == "error":
                    failure = failure or _named(*value)
                else:
                    answers[self._workers.index(worker)] = value
        if failure is not None:
            raise failure
        return answers

    def _lost_worker(self, worker: _Worker, how: str) -> errors.GameCrashedError:
        worker.process.join(1.0)
        code = worker.process.exitcode
        status = f"exit code {code}" if code is not None and code >= 0 else f"killed by signal {-(code or 0)}"
        return errors.GameCrashedError(
            f"{worker.describe()} was lost ({how}; {status}): its games are gone. The next reset() starts a new "
            "worker and new games for them."
        )

    def _in_order(self, answers: dict[int, list]) -> tuple:
        values: list = [None] * self.num_envs
        for k, worker in enumerate(self._workers):
            for i, value in zip(worker.indices, answers[k]):
                values[i] = value
        return tuple(values)

    def _observations(self) -> dict[str, np.ndarray]:
        assert self._batch is not None
        if self._copy:
            return {key: array.copy() for key, array in self._batch.arrays.items()}
        return dict(self._batch.arrays)

    def _seeds_of(self, seed) -> list[int | None]:
        if isinstance(seed, np.ndarray) and seed.ndim == 0:
            seed = seed.item()
        if seed is None or isinstance(seed, (int, np.integer)):
            return [None if seed is None else int(seed) + i for i in range(self.num_envs)]
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset(seed=...) got {len(seeds)} seeds for {self.num_envs} envs")
        for i, one in enumerate(seeds):
            require_seed(f"reset(seed=...)[{i}]", one)
        return [None if one is None else int(one) for one in seeds]


def _named(index: int | None, error: BaseException) -> BaseException:
    """A worker's error, its message naming the sub-env that raised it (when one did)."""
    if index is None:
        return error
    try:
        named = type(error)(f"sub-env {index}: {error}")
    except Exception:  # an error type that takes other arguments: as it is
        return error
    named.__cause__ = error
    return named
