"""How a campaign's search ended, as its own stop rule decided it: a model-guided search's
target (reached with its confidence, or the budget ended first), else the budget or the
strategy's own stop, or the user's."""

from __future__ import annotations

from iotwin.search.trust import ENDINGS
from iotwin.tuning.campaign import CampaignEvaluator


def ending(campaign: CampaignEvaluator, stopped_by_user: bool = False) -> str:
    """One line: why the search stopped where it did (``stopped_by_user``: Ctrl-C)."""
    spec, state, runs = campaign.spec, campaign.state, len(campaign.order)
    spent = f"{runs} of {spec.real_budget} runs"
    if stopped_by_user:
        return f"stopped by the user after {spent}"
    if state is not None and state.ended is not None:
        return (f"{ENDINGS[state.ended]} (target {state.target_text()}{state.shortfall()}) "
                f"after {spent}")
    if campaign.runs_left() <= 0:
        return f"budget ended after {spent} ({spec.strategy} has no target of its own)"
    return (f"{spec.strategy} stopped by itself after {spent} (its search converged or ran "
            f"out of configs to propose; it has no target of its own)")
