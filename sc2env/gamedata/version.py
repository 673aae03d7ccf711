"""The StarCraft II build the built-in engine reports itself as (the Linux 4.10 package)."""

GAME_VERSION = "4.10.0"
BASE_BUILD = 75689
DATA_BUILD = 75689
DATA_VERSION = "B89B5D6FA7CBF6452E721311BFBC6CB2"
