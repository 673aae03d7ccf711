"""SC2VectorEnv: several games stepped at once from one thread, their work overlapped in their own processes."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from sc2env import errors
from sc2env.client.connection import DEFAULT_SPIN_WAIT_S
from sc2env.env.env import SC2Env
from sc2env.env.registration import spec_property
from sc2env.game.match_config import require_count, require_seed
from sc2env.gamedata.clock import LOOPS_PER_REAL_SECOND
from sc2env.spinwait import SpinWait, poller


class SC2VectorEnv(VectorEnv):
    """`num_envs` SC2Envs, each with its own game process, stepped concurrently.

    A step sends every game its action before reading any answer, so the games simulate and render in
    parallel while this process decodes the observations as they arrive. Steps use no threads or
    subprocesses of Python; resets of several sub-envs run side by side in threads (waiting on games, not
    computing). The observation layout is that of one SC2Env, batched.

    `gymnasium.make_vec("sc2env/MoveToBeacon-v0", num_envs=4)` builds one (it is the `vector_entry_point`).
    Seeds: `reset(seed=s)` seeds sub-env i with s + i; a list gives one seed per sub-env.
    autoreset_mode: Gymnasium's three, as SyncVectorEnv plays them: NEXT_STEP (default: the step after an
    episode's end resets that game and ignores its action), SAME_STEP (the ending step resets it at once and
    puts the last observation and info in info["final_obs"] / info["final_info"]), DISABLED (the caller resets
    ended games with `reset(options={"reset_mask": mask})`, which also works in the other modes).
    """

    spec = spec_property(lambda env: env.envs[0].config)

    def __init__(
        self,
        num_envs: int = 1,
        map_name: str = "MoveToBeacon",
        render_mode: str | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        **kwargs: Any,
    ):
        # What close() reads, first: Gymnasium's __del__ closes an env whose __init__ refused its arguments.
        self.envs: list[SC2Env] = []
        self._starts: _Starts | None = None  # games a Ctrl-C left starting in their threads
        require_count("num_envs", num_envs, "game")
        self.autoreset_mode = autoreset_mode_of(autoreset_mode)
        if render_mode == "human" and num_envs > 1:  # their windows would fight over the one pygame display
            raise ValueError(
                f"render_mode='human' shows one game in the process's one window, not {num_envs}: "
                "use render_mode='rgb_array' (render() returns every game's frame) or num_envs=1"
            )
        seed = kwargs.pop("seed", None)
        require_seed("seed", seed)
        # Its games overlap their work in their own processes: games played in this one would take turns.
        kwargs.setdefault("direct", False)
        self.envs = [
            SC2Env(map_name, render_mode=render_mode, seed=None if seed is None else seed + i, **kwargs)
            for i in range(num_envs)
        ]
        first = self.envs[0]
        describe_batch(self, first, num_envs, render_mode)
        self._autoreset = np.zeros(num_envs, bool)  # sub-envs whose episode ended
        self._observations: list[dict] = []  # each sub-env's latest, for a reset of only some of them
        self._lost: str | None = None  # why step() must wait for reset(): a game was lost mid-batch
        # Waiting for the first of the games to answer: as one env's client does (see sc2env.spinwait).
        self._spin = SpinWait(DEFAULT_SPIN_WAIT_S if first.config.spin_wait else 0)

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None):
        if isinstance(seed, np.ndarray) and seed.ndim == 0:
            seed = seed.item()
        if seed is None or isinstance(seed, (int, np.integer)):
            seeds = [None if seed is None else int(seed) + i for i in range(self.num_envs)]
        elif isinstance(seed, (Sequence, np.ndarray)) and not isinstance(seed, (str, bytes)):
            seeds = list(seed)
            for i, one in enumerate(
                seeds
            ):  # checked before any game resets; Gymnasium takes Python ints only
                require_seed(f"reset(seed=...)[{i}]", one)
                seeds[i] = None if one is None else int(one)
        else:
            raise ValueError(
                f"reset(seed=...) takes an int (sub-env i gets seed + i), a list of {self.num_envs} "
                f"seeds, or None; not {seed!r}"
            )
        if len(seeds) != self.num_envs:
            raise ValueError(f"reset(seed=...) got {len(seeds)} seeds for {self.num_envs} envs")
        options = dict(options or {})
        chosen = _reset_mask(options.pop("reset_mask", None), self.num_envs)
        if chosen is not None and (not self._observations or self.closed or self._lost):
            raise errors.ProtocolError(
                "reset(options={'reset_mask': ...}) resets some sub-envs of a running vector env"
                f"{f' (not after {self._lost})' if self._lost else ''}: call reset() without a mask first"
            )
        self.closed = (
            False  # like one SC2Env, a closed vector env starts new games; close() must stop them again
        )
        indices = range(self.num_envs) if chosen is None else np.flatnonzero(chosen)
        try:
            results = self._reset_each(indices, [seeds[i] for i in indices], options or None)
            if chosen is None:
                self._observations = [obs for obs, _ in results]
                self._lost = None
            infos: dict[str, Any] = {}
            for i, (obs, info) in zip(map(int, indices), results):
                self._observations[i] = obs
                self._autoreset[i] = False
                infos = self._add_info(infos, info, i)
            return self._batch(self._observations), infos
        except BaseException as error:
            # Some games may have started new episodes unseen: only a whole reset() goes on from here.
            self._lost = f"a reset() that failed ({type(error).__name__})"
            self._observations = []
            raise

    def step(self, actions):
        if hasattr(actions, "function") and hasattr(actions, "arguments"):  # a tuple, but one action
            raise errors.MalformedActionError(
                f"step() got one FunctionCall for {self.num_envs} envs: give one per sub-env, e.g. "
                f"[call] * {self.num_envs}"
            )
        actions = np.asarray(actions) if not isinstance(actions, (list, tuple)) else actions
        scalar = isinstance(actions, np.ndarray) and actions.ndim == 0  # None, a number: no len()
        if scalar or len(actions) != self.num_envs:
            got = repr(actions.item()) if scalar else f"{len(actions)} actions"
            raise ValueError(
                f"step() got {got} for {self.num_envs} envs: give one per sub-env, "
                f"e.g. a ({self.num_envs}, {len(self.envs[0].action_mode.nvec)}) array or a list of FunctionCalls"
            )
        if self._lost is not None:
            raise errors.ProtocolError(
                f"step() called after {self._lost}: call reset() to start every sub-env's "
                "next episode (a lost game is replaced by a new one)."
            )
        to_reset = np.flatnonzero(self._autoreset)
        if len(to_reset) and self.autoreset_mode is AutoresetMode.DISABLED:
            raise errors.ProtocolError(
                f"step() called after the episodes of sub-envs {to_reset.tolist()} ended (autoreset_mode "
                f"DISABLED): reset them first, reset(options={{'reset_mask': mask}}) with mask[i] True for each"
            )
        live = [i for i in range(self.num_envs) if not self._autoreset[i]]
        # Every action is checked before any is sent, so an invalid one (invalid_action="raise") leaves
        # all games where they were.
        encoded = {}
        for i in live:
            try:
                encoded[i] = self.envs[i].encode(actions[i])
            except (errors.InvalidActionError, errors.ProtocolError) as error:
                raise type(error)(f"sub-env {i}: {error}") from error
        # Every live game gets its action first, so all of them work while we wait on, and decode, each one.
        sent: dict[int, tuple[Any, str | None]] = {}
        failures: dict[int, errors.SC2EnvError] = {}
        results: list = [None] * self.num_envs
        try:
            for i in live:
                try:
                    sent[i] = self.envs[i].send_encoded(*encoded[i])
                except errors.ConnectionError as error:
                    failures[i] = error
            if len(to_reset):
                for i, (obs, info) in zip(
                    map(int, to_reset), self._reset_each(to_reset, [None] * len(to_reset), None)
                ):
                    results[i] = (obs, 0.0, False, False, info)
            for i in _arrival_order(sent, self._spin):
                try:
                    results[i] = self.envs[i].finish_step(sent[i])
                except errors.SC2EnvError as error:  # read every other answer first: they stay usable
                    failures[i] = error
        except BaseException as error:
            self._interrupted(sent, results, failures)
            if failures or not isinstance(error, KeyboardInterrupt):  # Ctrl-C alone keeps every game usable
                self._lost = _lost_step(failures) or f"a step failed ({type(error).__name__}: {error})"
            raise
        # on_crash="truncate": the lost game's episode ends, and the batch goes on.
        for i, failure in sorted(failures.items()):
            if isinstance(failure, errors.ConnectionError) and self.envs[i].config.on_crash == "truncate":
                del failures[i]
                results[i] = self.envs[i].crash_step(failure)
        if failures:
            # The batch is lost, and with it the other games' episode boundaries: every sub-env starts anew at
            # reset(), so no episode silently runs on across one.
            index, failure = min(failures.items())
            self._lost = _lost_step(failures)
            raise type(failure)(f"sub-env {index}: {failure}") from failure
        try:
            return self._returned(results)
        except BaseException as error:  # every game answered, but the caller gets nothing (a Ctrl-C, say)
            ended = [i for i, result in enumerate(results) if result[2] or result[3]]
            if ended:
                self._lost = (
                    f"sub-env {ended[0]}'s episode ended in a step that did not return "
                    f"({type(error).__name__})"
                )
            raise

    def _returned(self, results: list) -> tuple:
        """What step() returns for every sub-env's (obs, reward, terminated, truncated, info); resets the sub-envs
        that ended under SAME_STEP."""
        rewards = np.array([r[1] for r in results], np.float64)
        terminations = np.array([r[2] for r in results], bool)
        truncations = np.array([r[3] for r in results], bool)
        self._autoreset = terminations | truncations
        self._observations = [r[0] for r in results]
        infos: dict[str, Any] = {}
        ended = np.flatnonzero(self._autoreset)
        if len(ended) and self.autoreset_mode is AutoresetMode.SAME_STEP:
            for i in map(int, ended):
                infos = self._add_info(infos, {"final_obs": results[i][0], "final_info": results[i][4]}, i)
            for i, (obs, info) in zip(map(int, ended), self._reset_each(ended, [None] * len(ended), None)):
                self._observations[i], results[i] = obs, (obs, *results[i][1:4], info)
            self._autoreset[:] = False
        for i, result in enumerate(results):
            infos = self._add_info(infos, result[4], i)
        return self._batch(self._observations), rewards, terminations, truncations, infos

    @property
    def np_random_seed(self) -> tuple[int, ...]:  # type: ignore[override]  # one per sub-env, as SyncVectorEnv
        """The sub-envs' seeds (as SyncVectorEnv reports them)."""
        return self.get_attr("np_random_seed")

    @property  # type: ignore[misc]  # read-only: each sub-env keeps its own
    def np_random(self) -> tuple[np.random.Generator, ...]:  # type: ignore[override]  # one per sub-env
        """The sub-envs' random generators (as SyncVectorEnv reports them)."""
        return self.get_attr("np_random")

    def action_masks(self) -> np.ndarray:
        """(num_envs, mask length) bool: each sub-env's current flat action mask (for MaskablePPO)."""
        return np.stack([env.action_masks() for env in self.envs])

    def render(self):
        return tuple(env.render() for env in self.envs)

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple:
        """Call a method (or read an attribute) of every sub-env."""
        values = []
        for env in self.envs:
            value = getattr(env, name)
            values.append(value(*args, **kwargs) if callable(value) else value)
        return tuple(values)

    def get_attr(self, name: str) -> tuple:
        return tuple(getattr(env, name) for env in self.envs)

    def set_attr(self, name: str, values: Any) -> None:
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        for env, value in zip(self.envs, values, strict=True):
            setattr(env, name, value)

    def close_extras(self, **kwargs: Any) -> None:
        starting = self._starts.abandon() if self._starts is not None else set()
        failure = None
        for i, env in enumerate(self.envs):
            if i not in starting:  # those are closed by their own threads once started, not under their feet
                try:
                    env.close()
                except BaseException as error:
                    failure = failure or error
        if failure is not None:
            raise failure

    # --- internals ---------------------------------------------------------------------------------

    def _interrupted(self, sent: dict, results: list, failures: dict) -> None:
        """After a Ctrl-C in step(): the games not read yet drop their answers before their next request,
        an episode that ended in a step already returned is reset at the next step, as it would have been, and
        one that ended unreturned makes step() wait for reset()."""
        for i, (pending, _) in sent.items():
            if results[i] is None and i not in failures and hasattr(pending, "abandon"):
                pending.abandon()
        for i, result in enumerate(results):
            if result is not None:
                self._autoreset[i] = False  # it played on (or was reset): the next step goes on from there
            # An episode that ended, read or not, but never returned: resetting it quietly would run the caller's
            # episode on across the boundary.
            if (result[2] or result[3]) if result is not None else (i in sent and self.envs[i].episode_over):
                self._lost = f"sub-env {i}'s episode ended in the interrupted step"

    def _reset_each(self, indices, seeds, options) -> list:
        """Reset the given sub-envs, side by side when there are several (each in a thread of its own)."""
        indices = list(indices)
        if self._starts is not None:  # starts a Ctrl-C left running end first: one thread resets a sub-env
            self._starts.wait()
            self._starts = None
        done = {}
        # Resetting is waiting (for a launch, or a restart's answer), not computing: one thread per game, so
        # games that hang cost one request timeout between them, not one each.
        if len(indices) > 1:
            # Kept from the start: a Ctrl-C anywhere from here on leaves them for the next reset() or close().
            starts = self._starts = _Starts({i: (self.envs[i], s) for i, s in zip(indices, seeds)}, options)
            try:
                starts.start()  # tracked before any thread runs: a Ctrl-C between two starts leaves none untracked
                done = starts.results()
            except Exception:
                starts.wait()  # the others' games are started and theirs, as after one reset that failed
                raise
            self._starts = None
        return [
            done[i] if i in done else self.envs[i].reset(seed=s, options=options)
            for i, s in zip(indices, seeds)
        ]

    def _batch(self, observations: list[dict]) -> dict:
        """The sub-envs' observations stacked, key by key, into new arrays (np.stack took twice as long)."""
        batch = {}
        for key in self.envs[0].observation_space.spaces:
            first = observations[0][key]
            out = batch[key] = np.empty((len(observations), *first.shape), first.dtype)
            for i, obs in enumerate(observations):
                out[i] = obs[key]
        return batch


def describe_batch(vector: Any, env: SC2Env, num_envs: int, render_mode: str | None) -> None:
    """Give a vector env of `num_envs` games like `env` its Gymnasium attributes (spaces, metadata, action spec)."""
    vector.num_envs = num_envs
    vector.render_mode = render_mode
    vector.metadata = {
        "render_modes": env.metadata["render_modes"],
        "render_fps": LOOPS_PER_REAL_SECOND / env.config.step_mul,
        "autoreset_mode": vector.autoreset_mode,
    }
    vector.single_observation_space = env.observation_space
    vector.single_action_space = env.action_space
    vector.observation_space = batch_space(env.observation_space, num_envs)
    vector.action_space = batch_space(env.action_space, num_envs)
    vector.action_spec = env.action_spec


def _lost_step(failures: Mapping[int, BaseException]) -> str | None:
    """Why step() waits for reset() after sub-envs' steps failed (the first of them named); None if none did."""
    if not failures:
        return None
    index, error = min(failures.items())
    return f"sub-env {index}'s step failed ({type(error).__name__})"


def autoreset_mode_of(value: str | AutoresetMode) -> AutoresetMode:
    """An AutoresetMode from itself, its value ("SameStep") or its name in any case ("same_step")."""
    named = AutoresetMode.__members__.get(str(value).upper())
    try:
        return named or AutoresetMode(value)
    except ValueError:
        raise ValueError(
            f"autoreset_mode must be one of {[mode.value for mode in AutoresetMode]} (or "
            f"{', '.join(m.lower() for m in AutoresetMode.__members__)}), not {value!r}"
        ) from None


def _reset_mask(mask, num_envs: int) -> np.ndarray | None:
    """options["reset_mask"] checked as Gymnasium's own vector envs check it (None: reset every sub-env)."""
    if mask is None:
        return None
    if not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (num_envs,)):
        raise ValueError(
            f"options['reset_mask'] must be a numpy bool array of shape ({num_envs},), one entry per "
            f"sub-env, not {mask!r}"
        )
    if not mask.any():
        raise ValueError("options['reset_mask'] must choose at least one sub-env to reset")
    return mask


_WAIT_MS = 1000
"""How long to wait for any game to answer before reading the first in order (whose read then applies the
controller's own timeout and errors)."""


def _arrival_order(sent: dict[int, tuple], spin: SpinWait) -> Iterator[int]:
    """The indices of `sent` (index -> (pending step, problem)) in the order their games answer, so that the
    games that finish first are decoded while the others are still working."""
    fds = {i: (pending.fileno() if hasattr(pending, "fileno") else -1) for i, (pending, _) in sent.items()}
    wait_ms = _WAIT_MS
    while fds:
        ready = next((i for i, fd in fds.items() if fd < 0), None)  # nothing to wait for: already answered
        if ready is None:
            spin.wait(*fds.values())
            events = {fd for fd, _ in poller(list(fds.values())).poll(wait_ms)}
            ready = next((i for i, fd in fds.items() if fd in events), None)
            if ready is None:  # all silent: read one, which waits out the request timeout if it must; the
                ready, wait_ms = next(iter(fds)), 0  # others then get no second wait of their own
        del fds[ready]
        yield ready


class _Starts:
    """Sub-envs' resets (which may start or replace their games) run side by side, each in a daemon thread of
    its own: unlike a pool's, nobody has to wait for them to end (not a Ctrl-C, not the interpreter's exit)."""

    def __init__(self, jobs: dict[int, tuple[SC2Env, int | None]], options) -> None:
        self._lock = threading.Lock()
        self._abandoned = False
        self._finished: set[int] = set()
        self._futures: dict[int, Future] = {i: Future() for i in jobs}
        # Waited on instead of Thread.join(): on CPython <= 3.12 a Ctrl-C inside join() marks the thread stopped
        # while it still runs, and the next join() returns at once.
        self._ended: dict[int, threading.Event] = {i: threading.Event() for i in jobs}
        self._threads = [
            threading.Thread(
                target=self._run, args=(i, env, seed, options), daemon=True, name=f"sc2env-start-{i}"
            )
            for i, (env, seed) in jobs.items()
        ]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def results(self) -> dict[int, Any]:
        """Each reset's result once all are done; the first failure raised."""
        return {i: future.result() for i, future in self._futures.items()}

    def wait(self) -> None:
        """Until every start has ended (and closed its game, if abandoned)."""
        for i, future in self._futures.items():
            if not future.cancel():  # cancelled: its thread never began (or never will) and touches nothing
                self._ended[i].wait()

    def abandon(self) -> set[int]:
        """The sub-envs still starting: each closes its own game once started (close() closes the others)."""
        with self._lock:
            self._abandoned = True
            never_began = {i for i, future in self._futures.items() if future.cancel()}
            return set(self._futures) - self._finished - never_began

    def _run(self, i: int, env: SC2Env, seed: int | None, options) -> None:
        try:
            self._reset(i, env, seed, options)
        finally:
            self._ended[i].set()

    def _reset(self, i: int, env: SC2Env, seed: int | None, options) -> None:
        future = self._futures[i]
        if not future.set_running_or_notify_cancel():  # wait() or abandon() gave it up before it began
            return
        try:
            future.set_result(env.reset(seed=seed, options=options))
        except BaseException as error:
            future.set_exception(error)
        with self._lock:
            self._finished.add(i)
            abandoned = self._abandoned
        if abandoned:
            env.close()
