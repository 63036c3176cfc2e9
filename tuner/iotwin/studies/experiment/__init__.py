"""Experiments: studies as data (experiments/*.yaml), run by one generic runner.

An experiment is the cross product of platforms x workloads x config entries; each product is
a *cell*. A config entry is one of:

- ``config: {...}``: a tuning config as given (``{}`` is the site / library default);
- ``search: {space, strategy?, budget, seed?, sections?}``: the best config the what-if
  search finds in simulation (search.py: exhaustive when the space fits the
  budget of simulations, else the genetic search), ``sections`` restricting it to the
  parameters of those config sections with every other key at its default (partial tuning);
- ``from: LABEL, keep: [lustre, mpiio, ...]``: the sections ``keep`` of the config an earlier
  entry found for the same platform and workload (the paper's partial tuning);
- ``sweep: {key, values, base}``: one cell per value of a dotted config key (or of a list of
  keys set to the same value) over ``base``;
- ``campaign: {strategy, space, budget, seeds, truth_seed, fixed}``: a tuning campaign per
  seed with the platform's twin as the machine (the convergence studies).

``measure`` says what decides a cell's rate: ``sim`` (the platform model), ``twin`` (the
platform's perturbed, noisy truth) or ``real`` (this machine, platform ``local``), with
``repetitions`` (the median counts). ``study`` names how a report draws the results (one
kind, or a list of kinds drawn one after the other).
Every evaluation is a row of the experiment's campaign (kind ``experiment``) in the store.

The package: the spec and its parser (spec.py), what measures a cell (measurers.py), the
runner (runner.py), a ``search`` entry (search.py), published figures (published.py).
"""
