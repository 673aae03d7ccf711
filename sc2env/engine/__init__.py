"""The built-in engine: a small SC2 API game server that plays the SC2LE mini-games (run: python -m sc2env.engine)."""
