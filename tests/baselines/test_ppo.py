"""The PPO baseline: its masked, function-conditioned distribution, and a short run on the built-in engine that
checkpoints, resumes where it stopped and is plotted."""

from __future__ import annotations

import csv
import importlib.util
import json
import signal
from collections import deque

import numpy as np
import pytest

torch = pytest.importorskip("torch")
for _extra in ("matplotlib", "tensorboard"):  # looked up, not imported: tensorboard alone takes seconds
    if importlib.util.find_spec(_extra) is None:
        pytest.skip(f"{_extra} is missing: pip install -e '.[test]'", allow_module_level=True)

from sc2env.baselines import evaluate, plot, ppo, runs  # noqa: E402
from sc2env.interface.format import InterfaceFormat  # noqa: E402
from sc2env.interface.spec import ActionSpec  # noqa: E402

SPEC = ActionSpec.from_format(InterfaceFormat(screen_size=8, minimap_size=8))


def random_masks(rng: np.random.Generator, rows: int) -> np.ndarray:
    """Observation-like flat masks: a few functions available, every argument with some allowed values."""
    masks = rng.random((rows, SPEC.total)) < 0.3
    functions = int(SPEC.nvec[0])
    masks[:, :functions] = rng.random((rows, functions)) < 0.02
    masks[:, 0] = True  # no_op, always available
    for a, b in zip(SPEC.offsets[1:-1], SPEC.offsets[2:]):
        masks[np.arange(rows), rng.integers(a, b, rows)] = True
    return masks


def test_full_masks_draw_only_allowed_calls_and_zero_the_arguments_not_taken():
    rng = np.random.default_rng(0)
    observed = random_masks(rng, 400)
    logits = torch.randn(400, SPEC.total)
    actions, masks = ppo.sample_actions(
        logits, observed, ppo.MaskMode.FULL, SPEC, torch.Generator().manual_seed(0)
    )
    assert observed[np.arange(400), actions[:, 0]].all()
    np.testing.assert_array_equal(masks, SPEC.conditional_mask(observed, actions[:, 0]))
    gate = SPEC.gate(actions[:, 0])
    assert gate[:, 1:].any(), "some drawn function takes arguments"
    for i in range(1, len(SPEC.nvec)):
        values = actions[:, i]
        assert (values[~gate[:, i]] == 0).all()
        allowed = masks[np.arange(400), SPEC.offsets[i] + values]
        assert allowed[gate[:, i]].all(), f"component {SPEC.names[i]} drew a masked value"


@pytest.mark.parametrize("mode", [ppo.MaskMode.FUNCTION, ppo.MaskMode.NONE])
def test_weaker_mask_modes_leave_arguments_or_functions_free(mode):
    rng = np.random.default_rng(1)
    observed = random_masks(rng, 400)
    actions, masks = ppo.sample_actions(
        torch.zeros(400, SPEC.total), observed, mode, SPEC, torch.Generator().manual_seed(1)
    )
    functions = int(SPEC.nvec[0])
    assert masks[:, functions:].all(), "arguments are never masked in these modes"
    available = observed[np.arange(400), actions[:, 0]]
    if mode is ppo.MaskMode.FUNCTION:
        assert available.all()
        np.testing.assert_array_equal(masks[:, :functions], observed[:, :functions])
    else:  # uniform over 573 functions, about 2% available: most draws are unavailable
        assert masks.all()
        assert available.mean() < 0.2


def test_log_prob_and_entropy_count_the_function_and_only_the_arguments_it_takes():
    rng = np.random.default_rng(2)
    observed = random_masks(rng, 64)
    logits = torch.randn(64, SPEC.total, requires_grad=True)
    actions, masks = ppo.sample_actions(
        logits.detach(), observed, ppo.MaskMode.FULL, SPEC, torch.Generator().manual_seed(2)
    )
    log_prob, entropy = ppo.evaluate(logits, torch.from_numpy(masks), torch.from_numpy(actions), SPEC)
    expected_lp, expected_ent = torch.zeros(64), torch.zeros(64)
    gate = SPEC.gate(actions[:, 0])
    for i in range(len(SPEC.nvec)):
        a, b = int(SPEC.offsets[i]), int(SPEC.offsets[i + 1])
        for row in range(64):
            if gate[row, i]:
                allowed = torch.from_numpy(masks[row, a:b])
                dist = torch.distributions.Categorical(logits=logits[row, a:b][allowed])
                position = int(allowed[: actions[row, i]].sum())  # the value among the allowed ones
                expected_lp[row] += dist.log_prob(torch.tensor(position))
                expected_ent[row] += dist.entropy()
    torch.testing.assert_close(log_prob, expected_lp, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(entropy, expected_ent, rtol=1e-5, atol=1e-5)
    (log_prob.sum() + entropy.sum()).backward()
    assert torch.isfinite(logits.grad).all()


def test_fullyconv_gives_a_logit_per_value_of_every_component_and_a_value():
    config = ppo.PPOConfig(screen_size=8)
    screen, minimap = config.layers()
    agent = ppo.FullyConv(SPEC, 8, screen, minimap, fc_pool=4)
    logits, value = agent(
        torch.zeros(3, len(screen), 8, 8, dtype=torch.uint8),
        torch.zeros(3, len(minimap), 8, 8, dtype=torch.uint8),
        torch.zeros(3, ppo.PLAYER_FIELDS, dtype=torch.int64),
        torch.ones(3, int(SPEC.nvec[0]), dtype=torch.bool),
    )
    assert logits.shape == (3, SPEC.total) and value.shape == (3,)
    with pytest.raises(ValueError, match="both must be 16×16"):
        ppo.FullyConv(SPEC, 16, screen, minimap)


def test_bad_settings_are_refused_with_what_to_do(tmp_path):
    with pytest.raises(ValueError, match="num_minibatches"):
        ppo.PPOConfig(num_envs=3, num_steps=5, num_minibatches=4)
    with pytest.raises(ValueError, match="masks must be one of none, function, full, not 'some'"):
        ppo.PPOConfig(masks="some")
    with pytest.raises(ValueError, match=r"unknown layers \['beacons'\]; known: height_map"):
        ppo.PPOConfig(screen_layers="player_relative,beacons")
    with pytest.raises(FileNotFoundError, match="run directory"):
        ppo.PPOTrainer.resume(tmp_path)
    assert ppo.main(["--resume", str(tmp_path)]) == 2


def test_a_stop_signal_asks_the_run_to_checkpoint_instead_of_killing_it():
    before = signal.getsignal(signal.SIGTERM)
    with runs.stop_on_signals() as stop:
        assert not stop.requested
        signal.raise_signal(signal.SIGTERM)
        assert stop.requested
    assert signal.getsignal(signal.SIGTERM) is before


def read_csv(path):
    with open(path, newline="") as file:
        return list(csv.DictReader(file))


def test_a_short_run_checkpoints_resumes_where_it_stopped_and_plots(tmp_path, marked_games, capsys):
    run_dir = tmp_path / "MoveToBeacon__full__s3"
    # step_mul 64: 30-step episodes, so that a few hundred steps finish some
    options = [
        "--screen-size",
        "16",
        "--num-envs",
        "2",
        "--num-steps",
        "32",
        "--step-mul",
        "64",
        "--seed",
        "3",
    ]
    options += ["--update-epochs", "2", "--num-minibatches", "2"]  # a few hundred steps, under a minute
    assert (
        ppo.main([*options, "--run-dir", str(run_dir), "--total-timesteps", "192", "--save-every", "2"]) == 0
    )
    assert marked_games() == [], "the run's games are stopped"
    updates = read_csv(run_dir / "updates.csv")
    assert [int(row["global_step"]) for row in updates] == [64, 128, 192]
    assert all(float(row["invalid_action_rate"]) == 0 for row in updates), "full masks draw no invalid call"
    episodes = read_csv(run_dir / "episodes.csv")
    assert episodes and all(int(row["length"]) == 30 for row in episodes)
    assert list(run_dir.glob("events.out.tfevents.*")), "TensorBoard events are written"
    checkpoint = runs.load_checkpoint(run_dir, ppo.CHECKPOINT_FORMAT)
    assert checkpoint["global_step"] == 192 and checkpoint["update"] == 3
    assert checkpoint["config"]["seed"] == 3 and checkpoint["config"]["masks"] == "full"

    # A row written after the checkpoint (a run killed between checkpoints) is dropped on resume.
    with open(run_dir / "episodes.csv", "a", newline="") as file:
        csv.writer(file).writerow([10**9, 0.0, 0, 99.0, 30, 0])
    with pytest.raises(ValueError, match="--seed can't change when resuming"):
        ppo.PPOTrainer.resume(run_dir, seed=4)
    with ppo.PPOTrainer.resume(run_dir, total_timesteps=320) as trainer:
        assert trainer.global_step == 192 and trainer.update == 3
        for name, saved in checkpoint["model"].items():
            assert torch.equal(trainer.agent.state_dict()[name], saved), name
        assert trainer.sampler.get_state().equal(checkpoint["rng"]["sampler"])
        trainer.run()
        assert trainer.global_step == 320
    assert marked_games() == []
    steps = [int(row["global_step"]) for row in read_csv(run_dir / "updates.csv")]
    assert steps == [64, 128, 192, 256, 320], "the step counter goes on from the checkpoint"
    episode_steps = [int(row["global_step"]) for row in read_csv(run_dir / "episodes.csv")]
    assert len(episode_steps) > len(episodes) and max(episode_steps) <= 320
    assert episode_steps == sorted(episode_steps)
    assert runs.load_checkpoint(run_dir, ppo.CHECKPOINT_FORMAT)["global_step"] == 320
    # Resuming a run that has reached its steps does nothing (a queue of runs can be started again as it is).
    assert ppo.main(["--resume", str(run_dir)]) == 0
    assert len(read_csv(run_dir / "updates.csv")) == 5

    # The frozen policy scored over whole episodes: each game plays its share from its reset.
    assert evaluate.main([str(run_dir), "--episodes", "3", "--num-envs", "2"]) == 0
    assert marked_games() == []
    result = json.loads((run_dir / "evaluation-sampled.json").read_text())
    assert result["episodes"] == 3 and result["lengths"] == [30, 30, 30] and result["global_step"] == 320
    assert result["mean"] == pytest.approx(np.mean(result["scores"]))
    greedy = [evaluate.evaluate_run(run_dir, 2, greedy=True, num_envs=2) for _ in range(2)]
    assert greedy[0].scores == greedy[1].scores, "a greedy policy on the same seeded games scores the same"
    assert greedy[0].file_name == "evaluation-greedy.json"
    with pytest.raises(ValueError, match="episodes must be at least 1"):
        evaluate.evaluate_run(run_dir, 0)

    # The plot: one PNG for the map, and the final scores as a table.
    capsys.readouterr()
    assert plot.main([str(tmp_path), "--out", str(tmp_path / "plots"), "--window", "4", "--table"]) == 0
    png = tmp_path / "plots" / "MoveToBeacon.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = capsys.readouterr().out
    assert "| MoveToBeacon | masks=full | 1 | " in out

    # --untrained plays the weights a run of these settings starts from, not the checkpoint's.
    config = ppo.PPOConfig(**checkpoint["config"])
    with ppo.PPOTrainer(config, tmp_path / "fresh") as fresh:
        started = fresh.agent.state_dict()
        before = torch.get_rng_state()
        rebuilt = ppo.initial_agent(config, fresh.spec).state_dict()
        assert torch.equal(torch.get_rng_state(), before), "the caller's random state is left alone"
    assert all(torch.equal(started[name], rebuilt[name]) for name in started)
    assert not all(torch.equal(started[name], checkpoint["model"][name]) for name in started)
    untrained = evaluate.evaluate_run(run_dir, 2, greedy=True, untrained=True, num_envs=2)
    assert untrained.global_step == 0 and untrained.file_name == "evaluation-untrained-greedy.json"
    assert (
        untrained.scores == evaluate.evaluate_run(run_dir, 2, greedy=True, untrained=True, num_envs=2).scores
    )
    assert marked_games() == []


def test_a_rollout_without_masks_is_played_and_replayed_with_the_same_log_probs(tmp_path, marked_games):
    config = ppo.PPOConfig(masks="none", screen_size=16, num_envs=2, num_steps=8, tensorboard=False)
    with ppo.PPOTrainer(config, tmp_path / "run") as trainer:
        obs, _ = trainer.envs.reset(seed=5)
        _, _, invalid = trainer._collect(obs, np.zeros(2, bool), 0.0, deque())
        assert trainer.global_step == 16
        assert invalid > 0, "unmasked draws pick unavailable functions, which the env plays as no_op"
        r = trainer.rollout
        with torch.no_grad():
            logits, values = trainer.agent(
                *(r.flat(name) for name in ("screen", "minimap", "player", "available"))
            )
            log_probs, _ = ppo.evaluate(logits, r.flat("masks"), r.flat("actions"), trainer.spec)
        torch.testing.assert_close(log_probs, r.log_probs.flatten())  # the first ratio of an update is 1
        torch.testing.assert_close(values, r.values.flatten())
        assert r.flat("masks").all(), "nothing is masked in this mode"
    assert marked_games() == []


def test_curves_average_seeds_over_their_last_episodes_and_groups_tell_settings_apart(tmp_path):
    def run(masks, seed, steps, scores, settings=(("screen_size", "16"),)):
        wall = np.arange(len(steps), dtype=float)
        return plot.Run(
            tmp_path, "MoveToBeacon", masks, seed, settings, np.array(steps), wall, np.array(scores)
        )

    full = run("full", 1, [10, 20, 30], [1.0, 2, 6])
    np.testing.assert_allclose(full.curve(np.array([5, 10, 25, 30, 100]), window=2), [np.nan, 1, 1.5, 4, 4])
    grouped = plot.groups(
        [run("none", 1, [10], [0.0]), run("full", 2, [10], [3.0]), full, run("full", 1, [10], [5.0], ())]
    )
    assert [(g.masks, g.label, [r.seed for r in members]) for g, members in grouped.items()] == [
        ("full", "masks=full, screen_size=16", [1, 2]),
        ("full", "masks=full", [1]),
        ("none", "masks=none, screen_size=16", [1]),
    ]
    reduced = [
        run("full", 1, [10], [1.0], (("functions", "no_op,Move_screen,select_army"),)),
        run("full", 1, [10], [2.0], (("functions", "no_op,Move_screen"),)),
        run("full", 1, [10], [3.0], (("functions", "all"),)),
    ]
    assert [g.label for g in plot.groups(reduced)] == [
        "masks=full, 3 functions",
        "masks=full, 2 functions (without select_army)",
        "masks=full, functions=all",
    ]
    table = plot.table([full, run("full", 2, [10, 40], [2.0, 4.0])], window=1)
    assert "| MoveToBeacon | masks=full | 2 | 30 | 5.0 ± 1.0 |" in table  # steps: what every seed reached
    with pytest.raises(ValueError, match="no runs"):
        plot.plot([], tmp_path)
    started = tmp_path / "runs" / "DefeatRoaches__full__s1"  # a run that has finished no episode yet
    started.mkdir(parents=True)
    (started / "config.json").write_text('{"map": "DefeatRoaches", "masks": "full", "seed": 1}')
    (started / "episodes.csv").write_text(",".join(runs.EPISODE_COLUMNS) + "\n")
    assert plot.load_runs([tmp_path / "runs"]) == []


def test_evaluation_quotas_split_episodes_evenly_over_the_games():
    assert evaluate.quotas(5, 2).tolist() == [3, 2]
    assert evaluate.quotas(100, 4).tolist() == [25, 25, 25, 25]
    assert evaluate.quotas(3, 4).tolist() == [1, 1, 1, 0]
