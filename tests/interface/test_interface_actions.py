"""FunctionCall construction, encoding to `Action` protos (byte-equal to PySC2's), validation and decoding."""

from __future__ import annotations

import numpy as np
import pytest
from interface_helpers import observation
from s2clientprotocol import common_pb2
from s2clientprotocol import sc2api_pb2 as sc_pb

from sc2env.errors import InvalidActionError
from sc2env.interface import (
    ARGUMENT_TYPES,
    FUNCTIONS,
    FunctionCall,
    FunctionKind,
    InterfaceFormat,
    ObservationDecoder,
    Queued,
    decode_action,
    encode_action,
)


def sample_arguments(func, fmt: InterfaceFormat) -> tuple[tuple[int, ...], ...]:
    """Valid arguments that differ from their defaults, so that every field is exercised."""
    args = []
    for t in func.args:
        if t.kind == "point":
            width, height = t.bounds(fmt)
            args.append((width - 1, 2) if t.name == "screen2" else (1, height - 1))
        else:
            args.append((t.bounds(fmt)[0] - 1,))
    return tuple(args)


def test_construction_by_name_int_enum_and_pysc2_list_form():
    assert FUNCTIONS.Move_screen("now", (3, 4)) == FunctionCall(331, ((0,), (3, 4)))
    assert FUNCTIONS.Move_screen(Queued.queued, np.array([3.7, 4.2])) == FunctionCall(331, ((1,), (3, 4)))
    assert FunctionCall.build(331, [[1], [3, 4]]) == FunctionCall(331, ((1,), (3, 4)))
    assert FunctionCall.build("select_army", [True]) == FunctionCall(7, ((1,),))
    assert FUNCTIONS.select_control_group("recall", np.int64(3)).arguments == ((0,), (3,))
    assert FUNCTIONS.select_army(np.array(1)).arguments == (
        (1,),
    )  # 0-d, as torch's argmax(...).numpy() gives
    assert str(FUNCTIONS.select_point("toggle", (5, 6))) == "select_point(toggle, (5, 6))"
    function, arguments = FUNCTIONS.no_op()  # a named tuple, like PySC2's
    assert (function, arguments) == (0, ())


@pytest.mark.parametrize(
    "build, message",
    [
        (
            lambda: FUNCTIONS.Move_screen((3, 4)),
            r"Move_screen takes 2 argument\(s\) \(queued, screen\); got 1",
        ),
        (lambda: FUNCTIONS.Move_screen("later", (3, 4)), "queued must be one of now, queued; got 'later'"),
        (lambda: FUNCTIONS.Move_screen(2, (3, 4)), "queued must be one of 0=now, 1=queued; got 2"),
        (lambda: FUNCTIONS.Move_screen("now", 7), "Move_screen needs a screen point"),
        (
            lambda: FUNCTIONS.Move_screen("now", (float("nan"), 3)),
            "point .* of finite numbers .* got \\(nan, 3\\)",
        ),
        (lambda: FUNCTIONS.select_army(np.array(0.5)), "select_add must be an int or a name; got 0.5"),
        (lambda: FUNCTIONS.select_control_group("recall", 10), r"control_group_id must be in 0..9; got 10"),
        (lambda: FunctionCall.build(573, ()), "unknown function id 573"),
        (lambda: FunctionCall.build("Teleport_screen", ()), "unknown function 'Teleport_screen'"),
    ],
)
def test_construction_errors_name_the_function_and_argument(build, message):
    with pytest.raises(InvalidActionError, match=message):
        build()


@pytest.mark.parametrize("action_space", ["features", "rgb"])
def test_every_function_encodes_exactly_like_pysc2(action_space):
    features = pytest.importorskip("pysc2_evolved.lib.features")
    actions = pytest.importorskip("pysc2_evolved.lib.actions")
    if action_space == "features":
        fmt = InterfaceFormat(screen_size=(84, 60), minimap_size=(64, 48))
        dims = {"feature_dimensions": features.Dimensions(screen=(84, 60), minimap=(64, 48))}
    else:
        fmt = InterfaceFormat(
            screen_size=None, minimap_size=None, rgb_screen_size=(84, 60), rgb_minimap_size=(64, 48)
        )
        dims = {"rgb_dimensions": features.Dimensions(screen=(84, 60), minimap=(64, 48))}
    theirs = features.Features(features.AgentInterfaceFormat(**dims), map_size=common_pb2.Size2DI(x=64, y=64))
    for func in FUNCTIONS:
        args = sample_arguments(func, fmt)
        if func.kind in (FunctionKind.SELECT_UNIT, FunctionKind.UNLOAD):
            args = args[:-1] + ((5,),)  # PySC2's ranges for these ids are 500, ours follow the format
        ours = encode_action(FunctionCall(func.id, args), fmt)
        reference = theirs.transform_action(
            None, actions.FunctionCall(func.id, [list(a) for a in args]), skip_available=True
        )
        assert ours.SerializeToString() == reference.SerializeToString(), func.name


@pytest.mark.parametrize("hide", [False, True])
def test_every_function_round_trips_through_decode_action(hide):
    fmt = InterfaceFormat(screen_size=64, minimap_size=32, hide_specific_actions=hide)
    for func in FUNCTIONS:
        call = FunctionCall(func.id, sample_arguments(func, fmt))
        if func.kind is FunctionKind.SELECT_RECT:  # the protocol stores a normalised rectangle
            call = FUNCTIONS.select_rect("add", (1, 2), (30, 40))
        decoded = decode_action(encode_action(call, fmt), fmt)
        expected = call
        if hide and func.general_id:
            general = next(f for f in FUNCTIONS if f.ability_id == func.general_id and f.kind is func.kind)
            expected = FunctionCall(general.id, call.arguments)
        assert decoded == expected, func.name


def test_point_and_range_validation_uses_the_format(fmt64):
    with pytest.raises(
        InvalidActionError, match=r"Move_screen needs a screen point; \(90, 3\) is outside 64×64"
    ):
        encode_action(FUNCTIONS.Move_screen("now", (90, 3)), fmt64)
    with pytest.raises(InvalidActionError, match=r"\(3, 64\) is outside 64×64"):
        encode_action(FUNCTIONS.Move_screen("now", (3, 64)), fmt64)
    with pytest.raises(InvalidActionError, match=r"move_camera needs a minimap point; \(-1, 0\) is outside"):
        encode_action(FUNCTIONS.move_camera((-1, 0)), fmt64)
    with pytest.raises(InvalidActionError, match=r"select_unit: select_unit_id must be in 0..63; got 64"):
        encode_action(FUNCTIONS.select_unit("select", 64), fmt64)
    with pytest.raises(InvalidActionError, match=r"takes 2 argument"):
        encode_action(FunctionCall(331, ((0,),)), fmt64)
    with pytest.raises(InvalidActionError, match="unknown function id 999"):
        encode_action(FunctionCall(999, ()), fmt64)
    with pytest.raises(InvalidActionError, match="expected a FunctionCall"):
        encode_action("Move_screen", fmt64)


def test_encoding_accepts_pysc2_function_calls(fmt64):
    actions = pytest.importorskip("pysc2_evolved.lib.actions")
    call = actions.FUNCTIONS.Attack_screen("queued", [10, 20])
    action = encode_action(call, fmt64)
    command = action.action_feature_layer.unit_command
    assert (command.ability_id, command.queue_command) == (3674, True)
    assert (command.target_screen_coord.x, command.target_screen_coord.y) == (10, 20)


@pytest.mark.parametrize("function", ["Move_screen", FUNCTIONS.Move_screen, 331, np.int64(331)])
def test_a_function_call_made_directly_as_pysc2_code_does_is_checked_and_encoded(fmt64, function):
    # A name or a Function in a FunctionCall made directly (not through build()) failed with
    # "'<=' not supported between instances of 'int' and 'str'".
    action = encode_action(FunctionCall(function, [[1], [10, 20]]), fmt64)
    command = action.action_feature_layer.unit_command
    assert (command.ability_id, command.queue_command) == (3794, True)
    assert (command.target_screen_coord.x, command.target_screen_coord.y) == (10, 20)
    with pytest.raises(InvalidActionError, match=r"unknown function id 331.0"):
        encode_action(FunctionCall(331.0, [[1], [10, 20]]), fmt64)
    # A point of floats in the tuple form is floored, as build() does (an IndexError in env.step before).
    point = encode_action(FunctionCall(331, ((0,), (10.5, np.float32(20.25)))), fmt64)
    assert point.action_feature_layer.unit_command.target_screen_coord.y == 20


def test_masks_make_validation_refuse_unavailable_functions_and_values(fmt64):
    decoder = ObservationDecoder(fmt64)
    obs = decoder.decode(observation(panel=("multi", 3), abilities=[(23, True)]))
    assert encode_action(FUNCTIONS.Attack_screen("now", (5, 5)), fmt64, obs.masks).HasField(
        "action_feature_layer"
    )
    encode_action(FUNCTIONS.select_unit("select", 2), fmt64, obs.masks)
    with pytest.raises(
        InvalidActionError,
        match=r"select_unit: select_unit_id 3 is not allowed now; "
        r"allowed now: \[0, 1, 2\]",
    ):
        encode_action(FUNCTIONS.select_unit("select", 3), fmt64, obs.masks)
    with pytest.raises(InvalidActionError, match="Move_screen is not available now; available: no_op"):
        encode_action(FUNCTIONS.Move_screen("now", (5, 5)), fmt64, obs.masks)
    # Enum values come with their names (the bare numbers read as jargon in the viewer's bottom bar).
    with pytest.raises(
        InvalidActionError,
        match=r"select_control_group: control_group_act 0 \(recall\) is not "
        r"allowed now; allowed now: 1 \(set\), 2 \(append\), 3 \(set_and_steal\), "
        r"4 \(append_and_steal\)$",
    ):
        encode_action(FUNCTIONS.select_control_group("recall", 1), fmt64, obs.masks)
    # Offered by the game (available_actions lists it) but with nothing to act on: the message said it was
    # "not available" and listed the available functions without it, which read as a contradiction.
    bare = decoder.decode(observation())
    assert FUNCTIONS.select_control_group.id in bare.available_actions
    with pytest.raises(
        InvalidActionError,
        match=r"^select_control_group can't be called now: its control_group_id "
        r"has no allowed value \(no control group holds units, and nothing is selected",
    ):
        encode_action(FUNCTIONS.select_control_group("recall", 1), fmt64, bare.masks)


def test_decoding_what_the_real_game_reports(realdata, fmt64):
    response = realdata("pysc2_obs_data1.observation")
    calls = [decode_action(a, fmt64) for a in response.actions]
    assert calls == [
        FUNCTIONS.select_point("select", (127, 127)),
        FUNCTIONS.Effect_ChronoBoostEnergyCost_screen("now", (127, 127)),
        FUNCTIONS.select_point("toggle", (127, 127)),
    ]


def test_inexpressible_actions_decode_to_none(fmt64):
    raw_only = sc_pb.Action()
    raw_only.action_raw.unit_command.ability_id = 16
    unknown = sc_pb.Action()
    unknown.action_feature_layer.unit_command.ability_id = 999999
    smart_quick = sc_pb.Action()
    smart_quick.action_feature_layer.unit_command.ability_id = 1  # Smart has no quick form
    echoed_no_op = sc_pb.Action(game_loop=12)
    assert decode_action(raw_only, fmt64) is None
    assert decode_action(unknown, fmt64) is None
    assert decode_action(smart_quick, fmt64) is None
    assert decode_action(echoed_no_op, fmt64) == FUNCTIONS.no_op()
    # The general id and the specific one the real game reports both read back as the general function.
    specific = sc_pb.Action()
    specific.action_feature_layer.unit_command.ability_id = 23
    specific.action_feature_layer.unit_command.target_screen_coord.x = 4
    assert decode_action(specific, fmt64).function == FUNCTIONS.Attack_screen.id


@pytest.mark.parametrize("hide", [True, False])
def test_specific_forms_without_a_function_roll_up_like_pysc2(pysc2_features, hide):
    """A specific ability in a form only its general ability has (a Burrow-up autocast, a minimap
    Attack_Redirect) reads back as the general function under hide_specific_actions, as in PySC2."""
    fmt = InterfaceFormat(screen_size=64, minimap_size=64, hide_specific_actions=hide)
    theirs = pysc2_features(64, 64, hide_specific_actions=hide)
    autocast = sc_pb.Action()
    autocast.action_ui.toggle_autocast.ability_id = 1380  # BurrowUp_Drone
    redirect = sc_pb.Action()
    redirect.action_feature_layer.unit_command.ability_id = 1682  # Attack_Redirect
    redirect.action_feature_layer.unit_command.target_minimap_coord.x = 5
    for action, general in (
        (autocast, FUNCTIONS.BurrowUp_autocast.id),
        (redirect, FUNCTIONS.Attack_minimap.id),
    ):
        ours = decode_action(action, fmt)
        if hide:
            assert ours.function == general == theirs.reverse_action(action).function
        else:
            assert ours is None  # PySC2 raises ValueError: no function has that form


def test_argument_sizes_follow_the_format():
    fmt = InterfaceFormat(screen_size=(84, 60), minimap_size=32, max_selected_units=20, max_cargo=8)
    assert ARGUMENT_TYPES.sizes(fmt) == (84 * 60, 32 * 32, 84 * 60, 2, 5, 10, 4, 2, 4, 20, 4, 10, 8)
    assert ARGUMENT_TYPES.screen.bounds(fmt) == (84, 60)
