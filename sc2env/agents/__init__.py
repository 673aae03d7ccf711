"""Agents for sc2env: the agent protocol, a masked random agent, a scripted agent per mini-game and for
Simple64, a runner."""

from sc2env.agents.base import Action, Agent, ScriptedAgent
from sc2env.agents.random_agent import RandomAgent
from sc2env.agents.registry import SCRIPTED_AGENTS, agent_class, make_agent
from sc2env.agents.runner import Episode, Summary, run_agent, run_episode, summarise
from sc2env.agents.scripted_combat import (
    DefeatRoaches,
    DefeatZerglingsAndBanelings,
    FindAndDefeatZerglings,
    FocusFire,
)
from sc2env.agents.scripted_duel import DuelArmy
from sc2env.agents.scripted_economy import BuildMarines, CollectMineralsAndGas, Economy, EconomyPlan
from sc2env.agents.scripted_melee import Simple64
from sc2env.agents.scripted_movement import CollectMineralShards, MoveToBeacon
from sc2env.agents.scripted_raw_combat import RawFocusFire

__all__ = [
    "SCRIPTED_AGENTS",
    "Action",
    "Agent",
    "BuildMarines",
    "CollectMineralShards",
    "CollectMineralsAndGas",
    "DefeatRoaches",
    "DefeatZerglingsAndBanelings",
    "DuelArmy",
    "Economy",
    "EconomyPlan",
    "Episode",
    "FindAndDefeatZerglings",
    "FocusFire",
    "MoveToBeacon",
    "RandomAgent",
    "RawFocusFire",
    "ScriptedAgent",
    "Simple64",
    "Summary",
    "agent_class",
    "make_agent",
    "run_agent",
    "run_episode",
    "summarise",
]
