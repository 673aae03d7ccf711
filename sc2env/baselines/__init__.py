"""Reference learning agents for the mini-games: masked PPO with the SC2LE FullyConv policy, and its plots.

`python -m sc2env.baselines.ppo --help` trains; `python -m sc2env.baselines.plot --help` draws learning
curves. Both need the `train` extra (PyTorch, TensorBoard, Matplotlib); `import sc2env` never loads them.
"""
