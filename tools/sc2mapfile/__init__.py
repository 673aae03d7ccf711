"""Readers for the members of a StarCraft II .SC2Map file (an MPQ archive), used by tools/smac_maps.py."""
