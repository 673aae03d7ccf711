"""Function masks, argument value masks, the flat layout and conditional masks."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from interface_helpers import observation

from sc2env.errors import InvalidActionError
from sc2env.interface import (
    ARGUMENT_NAMES,
    ARGUMENT_TYPES,
    FUNCTIONS,
    ActionSpec,
    FunctionCall,
    InterfaceFormat,
    ObservationDecoder,
)

MARINE = [(1, True), (4, False), (16, True), (17, True), (18, False), (23, True)]
STATES = {
    "nothing selected": {},
    "marine selected": {"abilities": MARINE, "army": 1, "panel": ("single",)},
    "three marines": {"abilities": MARINE, "army": 3, "panel": ("multi", 3)},
    "seventy marines": {"abilities": MARINE, "army": 70, "panel": ("multi", 70)},
    "medivac with two": {"panel": ("cargo", 2)},
    "barracks queue of two": {"abilities": [(560, False)], "panel": ("production", 2)},
    "empty barracks queue": {"abilities": [(560, False)], "panel": ("production", 0)},
    "idle workers and groups": {"idle_workers": 2, "groups": [(1, 45, 4), (5, 48, 2)]},
}


def decode(fmt, **state):
    return ObservationDecoder(fmt).decode(observation(**state))


def test_layout_is_function_then_the_13_arguments(fmt64):
    spec = ActionSpec.from_format(fmt64)
    assert spec.nvec.tolist() == [573, 4096, 4096, 4096, 2, 5, 10, 4, 2, 4, 64, 4, 10, 16]
    assert spec.total == 573 + 2 * 64 * 64 + 64 * 64 + 2 + 5 + 10 + 4 + 2 + 4 + 64 + 4 + 10 + 16
    assert spec.offsets[0] == 0 and spec.offsets[-1] == spec.total
    assert spec.segment("screen") == slice(573, 573 + 4096)
    assert spec.function_arguments.shape == (573, 13)
    parts = spec.split(np.arange(spec.total))
    assert [len(p) for p in parts] == spec.nvec.tolist()


@pytest.mark.parametrize("state", STATES)
def test_no_segment_is_ever_all_zero(fmt64, state):
    masks = decode(fmt64, **STATES[state]).masks
    assert masks.flat.dtype == bool and masks.flat.shape == (masks.spec.total,)
    for part in masks.split():
        assert part.dtype == np.int8 and part.any()
    for function_id in masks.available_function_ids:
        for part in masks.spec.split(masks.for_function(int(function_id))):
            assert part.any()


def test_function_mask_follows_the_game_and_the_ui(fmt64):
    nothing = decode(fmt64)
    assert nothing.masks.available_function_ids.tolist() == [0, 1, 2, 3]  # no group, no selection
    marine = decode(fmt64, **STATES["marine selected"])
    assert set(marine.masks.available_function_ids) == set(marine.available_actions)
    assert FUNCTIONS.select_control_group.id in marine.masks.available_function_ids  # it can be set
    multi = decode(fmt64, **STATES["three marines"])
    assert FUNCTIONS.select_unit.id in multi.masks.available_function_ids
    cargo = decode(fmt64, **STATES["medivac with two"])
    assert FUNCTIONS.unload.id in cargo.masks.available_function_ids
    queue = decode(fmt64, **STATES["barracks queue of two"])
    assert {FUNCTIONS.build_queue.id, FUNCTIONS.Train_Marine_quick.id} <= set(
        queue.masks.available_function_ids
    )
    # PySC2 offers build_queue for any production panel; with nothing queued there is nothing to pick.
    empty = decode(fmt64, **STATES["empty barracks queue"])
    assert FUNCTIONS.build_queue.id in empty.available_actions
    assert FUNCTIONS.build_queue.id not in empty.masks.available_function_ids
    workers = decode(fmt64, **STATES["idle workers and groups"])
    assert {FUNCTIONS.select_idle_worker.id, FUNCTIONS.select_control_group.id} <= set(
        workers.masks.available_function_ids
    )


def test_argument_value_masks_follow_the_ui(fmt64):
    multi = decode(fmt64, **STATES["three marines"]).masks
    assert np.flatnonzero(multi.argument("select_unit_id")).tolist() == [0, 1, 2]
    assert multi.argument("select_unit_act").all()
    many = decode(fmt64, **STATES["seventy marines"]).masks
    assert many.argument("select_unit_id").all()  # capped at max_selected_units (64), never spilling over
    assert np.flatnonzero(many.argument("select_worker")).tolist() == [0]
    assert np.flatnonzero(
        decode(fmt64, **STATES["medivac with two"]).masks.argument("unload_id")
    ).tolist() == [0, 1]
    queue = decode(fmt64, **STATES["barracks queue of two"]).masks
    assert np.flatnonzero(queue.argument("build_queue_id")).tolist() == [0, 1]
    workers = decode(fmt64, **STATES["idle workers and groups"]).masks
    assert workers.argument("select_worker").all()
    # Nothing selected: only groups that exist, to recall or to empty (set, set_and_steal); nothing to append.
    assert np.flatnonzero(workers.argument("control_group_act")).tolist() == [0, 1, 3]
    assert np.flatnonzero(workers.argument("control_group_id")).tolist() == [1, 5]
    # With a selection, any group can be set or appended to.
    marine = decode(fmt64, **STATES["marine selected"]).masks
    assert np.flatnonzero(marine.argument("control_group_act")).tolist() == [1, 2, 3, 4]
    assert marine.argument("control_group_id").all()
    assert (
        marine.argument("screen").all()
        and marine.argument("minimap").all()
        and marine.argument("queued").all()
    )


def test_arguments_no_available_function_takes_are_pinned_to_zero(fmt64):
    masks = decode(fmt64).masks  # nothing selected: no unit commands, no panel
    for name in (
        "queued",
        "select_unit_act",
        "select_unit_id",
        "select_worker",
        "build_queue_id",
        "unload_id",
        "control_group_act",
        "control_group_id",
    ):
        assert np.flatnonzero(masks.argument(name)).tolist() == [0], name
    assert masks.argument("screen").all()  # select_point and select_rect are always there


def test_conditional_masks_pin_what_the_chosen_function_ignores(fmt64):
    masks = decode(fmt64, **STATES["three marines"]).masks
    move = masks.for_function(FUNCTIONS.Move_screen.id)
    spec = masks.spec
    assert move[spec.segment("screen")].all() and move[spec.segment("queued")].all()
    assert np.flatnonzero(move[spec.segment("select_unit_id")]).tolist() == [0]
    assert np.flatnonzero(move[spec.segment("minimap")]).tolist() == [0]
    np.testing.assert_array_equal(move[spec.segment("function")], masks.function)
    batch = np.stack([masks.flat, masks.flat])
    positions = np.array([FUNCTIONS.Move_screen.id, FUNCTIONS.select_unit.id])
    conditioned = spec.conditional_mask(batch, positions)
    np.testing.assert_array_equal(conditioned[0], move)
    np.testing.assert_array_equal(conditioned[1], masks.for_function(FUNCTIONS.select_unit.id))
    np.testing.assert_array_equal(batch[0], masks.flat)  # the input is left alone
    # One index conditions every row; a wrong count is refused (rows beyond it were left as they were).
    move_position = int(spec.function_position[FUNCTIONS.Move_screen.id])
    np.testing.assert_array_equal(spec.conditional_mask(batch, move_position), np.stack([move, move]))
    with pytest.raises(ValueError, match=r"2 function indices for 3 masks: give one per row"):
        spec.conditional_mask(np.stack([masks.flat] * 3), positions)
    # split() of a bool mask (what action_masks() returns) gives what MultiDiscrete.sample(mask=...) takes.
    parts = spec.split(move)
    assert all(part.dtype == np.int8 for part in parts)
    sampled = gym.spaces.MultiDiscrete(spec.nvec).sample(mask=parts)
    assert sampled[0] == FUNCTIONS.Move_screen.id or move[sampled[0]]
    np.testing.assert_array_equal(masks.for_function("Move_screen"), move)
    # Wrong names and ids used to surface as numpy's IndexError or tuple.index's ValueError.
    with pytest.raises(IndexError, match="no function id 999; ids run from 0 to 572"):
        masks.for_function(999)
    with pytest.raises(KeyError, match="no action component 'screen_2'; the components: function, screen"):
        masks.argument("screen_2")
    subset = ActionSpec.from_format(fmt64, ["no_op", "select_army", "Move_screen"])
    with pytest.raises(
        IndexError, match=r"positions in this action space's function component \(0\.\.2.*not 331"
    ):
        subset.conditional_mask(np.ones(subset.total, np.int8), FUNCTIONS.Move_screen.id)


def test_vectors_and_calls_convert_both_ways(fmt64):
    spec = ActionSpec.from_format(fmt64)
    assert spec.names[:3] == ("function", "screen", "minimap") and len(spec.names) == len(spec.nvec) == 14
    assert spec.function_names[FUNCTIONS.Move_screen.id] == "Move_screen"
    call = FUNCTIONS.select_rect("add", (3, 60), (63, 0))
    vector = spec.to_vector(call)
    assert vector[0] == FUNCTIONS.select_rect.id and vector[1] == 60 * 64 + 3 and vector[3] == 63
    assert spec.to_call(vector) == call
    assert spec.to_call(spec.nvec - 1) == FunctionCall(572, ((1,),))  # unused components ignored
    with pytest.raises(InvalidActionError, match=r"function component 573 is outside 0..572"):
        spec.to_call(np.r_[573, np.zeros(13, int)])


def test_a_function_subset_shrinks_the_function_component(fmt64):
    subset = ["no_op", "select_army", "Attack_screen", "Move_screen"]
    decoder = ObservationDecoder(fmt64, functions=subset)
    masks = decoder.decode(observation(**STATES["three marines"])).masks
    assert masks.spec.nvec[0] == 4 and masks.function.tolist() == [True, True, True, True]
    assert np.flatnonzero(masks.argument("select_unit_id")).tolist() == [
        0
    ]  # select_unit is not in the subset
    assert np.flatnonzero(masks.argument("select_add")).tolist() == [0, 1]
    assert masks.spec.to_call(np.r_[3, 5, np.zeros(12, int)]) == FUNCTIONS.Move_screen("now", (5, 0))
    with pytest.raises(InvalidActionError, match="select_point is not in this action space"):
        masks.check(FUNCTIONS.select_point("select", (1, 1)))
    with pytest.raises(ValueError, match="without repeats"):
        ActionSpec.from_format(fmt64, ["no_op", "no_op"])


def test_mask_arrays_are_fresh_each_step(fmt64):
    decoder = ObservationDecoder(fmt64)
    first = decoder.decode(observation())
    second = decoder.decode(observation())
    assert not np.shares_memory(first.masks.flat, second.masks.flat)
    assert len(ARGUMENT_NAMES) == len(ARGUMENT_TYPES) == 13


def test_remembered_masks_are_the_same_as_fresh_ones_and_safe_to_change(fmt64):
    decoder = ObservationDecoder(fmt64)
    for _ in range(2):  # the second round is answered from what the first remembered
        for state in STATES.values():
            masks = decoder.decode(observation(**state)).masks
            assert np.array_equal(masks.flat, decode(fmt64, **state).masks.flat)
            masks.flat[:] = True  # a caller scribbling on its arrays changes nothing for later steps


def test_sizes_follow_max_selected_units_and_max_cargo():
    fmt = InterfaceFormat(screen_size=32, minimap_size=16, max_selected_units=5, max_cargo=4)
    masks = decode(fmt, **STATES["seventy marines"]).masks
    assert masks.argument("select_unit_id").tolist() == [True] * 5
    assert masks.argument("unload_id").tolist() == [True, False, False, False]
    assert masks.spec.nvec.tolist()[1:4] == [1024, 256, 1024]


def test_the_gate_keeps_the_function_and_the_arguments_it_takes(fmt64):
    torch = pytest.importorskip("torch")
    spec = ActionSpec.from_format(fmt64, ["no_op", "select_army", "Move_screen", "select_point"])
    names = np.array(spec.names)
    assert names[spec.gate(0)].tolist() == ["function"]
    assert names[spec.gate(2)].tolist() == ["function", "screen", "queued"]
    assert spec.gate(np.array([1, 3])).tolist() == [spec.gate(1).tolist(), spec.gate(3).tolist()]
    values = np.arange(28, dtype=float).reshape(2, 14)  # component k of row r holds 14 r + k
    # Move_screen: function, screen (1), queued (4); select_point: function, screen (1), select_point_act (7).
    assert spec.gated_sum(values, np.array([2, 3])).tolist() == [0 + 1 + 4, 14 + (14 + 1) + (14 + 7)]
    # On torch tensors the sum stays differentiable, and only the gated components get gradients.
    log_probs = torch.zeros(2, 14, requires_grad=True)
    spec.gated_sum(log_probs, torch.tensor([2, 0])).sum().backward()
    assert log_probs.grad.bool().tolist() == spec.gate(np.array([2, 0])).tolist()
    # A masked policy's -inf in a component the function ignores is left out, not turned into NaN.
    masked = torch.zeros(1, 14)
    masked[0, 1] = -torch.inf  # screen, which select_army ignores
    assert spec.gated_sum(masked, torch.tensor([1])).tolist() == [0.0]
    assert spec.gated_sum(masked.numpy(), np.array([1])).tolist() == [0.0]
    with pytest.raises(ValueError, match=r"values of shape \(2, 13\) for function_index giving \(2, 14\)"):
        spec.gated_sum(np.zeros((2, 13)), np.array([0, 1]))
    with pytest.raises(IndexError, match=r"positions in this action space's function component \(0\.\.3"):
        spec.gate(4)
