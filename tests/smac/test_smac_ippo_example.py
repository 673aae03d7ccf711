"""examples/smac_ippo.py: its GAE and masks by hand, and a short real run on 3m that saves, resumes and plots."""

from __future__ import annotations

import argparse
import csv
import importlib.util
import pathlib
import re
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("matplotlib")

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "smac_ippo.py"


@pytest.fixture(scope="module")
def ippo():
    spec = importlib.util.spec_from_file_location("smac_ippo", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["smac_ippo"] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules["smac_ippo"]


def test_gae_cuts_at_a_defeat_and_bootstraps_at_the_time_limit(ippo):
    """Three steps of one env and one agent: step 0 ends its episode with a defeat (no bootstrap), step 1
    ends one at the time limit (bootstrapped from the value 5 of its last state), step 2 goes on (the
    rollout's last value, 7)."""
    args = argparse.Namespace(gamma=0.5, gae_lambda=0.5)
    rewards = np.array([[1.0], [2.0], [3.0]])
    dones = np.array([[True], [True], [False]])
    values = np.array([[[0.5]], [[1.0]], [[2.0]]])
    bootstrap = np.array([[[0.0]], [[5.0]], [[0.0]]])
    last = np.array([[7.0]])
    adv = ippo.gae(rewards, dones, values, bootstrap, last, args)
    assert adv[2, 0, 0] == pytest.approx(3 + 0.5 * 7 - 2)
    assert adv[1, 0, 0] == pytest.approx(2 + 0.5 * 5 - 1)  # nothing of step 2 leaks back over the end
    assert adv[0, 0, 0] == pytest.approx(1 - 0.5)


def test_the_policy_never_picks_an_unavailable_action(ippo):
    agent = ippo.Agent(obs_size=4, critic_size=6, n_agents=3, n_actions=5, hidden=8)
    obs = torch.randn(64, 3, 4)
    avail = torch.zeros(64, 3, 5)
    avail[..., 1] = 1
    avail[:, 0, 3] = 1
    actions = agent.distribution(obs, avail).sample()
    assert set(actions[:, 1:].flatten().tolist()) == {1}
    assert set(actions[:, 0].tolist()) <= {1, 3}
    assert agent.value(torch.randn(64, 3, 6)).shape == (64, 3)


def test_resume_without_a_checkpoint_says_what_to_do(ippo, tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no checkpoint at .*train without --resume"):
        ippo.main(["--run-dir", str(tmp_path), "--resume", "--total-steps", "10"])


def rows(run_dir: pathlib.Path) -> list[dict]:
    with open(run_dir / "progress.csv", newline="") as file:
        return list(csv.DictReader(file))


def test_a_short_run_on_3m_trains_saves_resumes_and_plots(ippo, tmp_path, capsys):
    """The real thing, briefly: two games of 3m on the built-in engine (real engine processes over
    websockets), 200 env steps, then 200 more resumed from the checkpoint, a greedy evaluation of it, then
    the plot."""
    common = ["--map", "3m", "--engine", "builtin", "--envs", "2", "--rollout", "50", "--epochs", "2"]
    common += ["--eval-every", "200", "--eval-episodes", "2", "--checkpoint-every", "100"]
    common += ["--run-dir", str(tmp_path)]
    ippo.main([*common, "--total-steps", "200"])
    first = rows(tmp_path)
    assert [int(r["global_step"]) for r in first] == [100, 200]
    assert first[0]["eval_win_rate"] != "" and first[1]["eval_win_rate"] != ""
    assert 0.0 <= float(first[1]["eval_win_rate"]) <= 1.0
    assert int(first[1]["episodes"]) > 0, "200 steps of 3m end some episodes"
    saved = torch.load(tmp_path / "checkpoint.pt", weights_only=False)
    assert saved["counters"]["global_step"] == 200
    weights = {k: v.clone() for k, v in saved["agent"].items()}

    ippo.main([*common, "--total-steps", "400", "--resume"])
    both = rows(tmp_path)
    assert [int(r["global_step"]) for r in both] == [100, 200, 300, 400]
    assert float(both[3]["wall_time"]) > float(both[1]["wall_time"])  # the wall clock carries on too
    resumed = torch.load(tmp_path / "checkpoint.pt", weights_only=False)
    assert resumed["counters"]["global_step"] == 400
    assert any(not torch.equal(weights[k], resumed["agent"][k]) for k in weights), "training went on"

    ippo.main([*common, "--evaluate", "--eval-episodes", "1"])
    assert re.search(
        r"3m: greedy win rate \d+\.\d% over 1 episodes .* after 400 env steps", capsys.readouterr().out
    )

    (tmp_path / "learning_curve.png").unlink()
    ippo.main(["--run-dir", str(tmp_path), "--plot"])
    assert (tmp_path / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
