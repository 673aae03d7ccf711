"""The built-in engine's mini-game definitions: one JSON file per map (format in docs/engine.md)."""
