"""Campaigns written into a store as iotwin stores them, for the tests of what reads them."""

from __future__ import annotations

from iotwin.store.database import Store


def tune_campaign(store: Store) -> int:
    """A sim-screened campaign as the store holds one: predictions, then real repetitions."""
    cid = store.create_campaign("tune", kind="tune", spec={
        "strategy": "sim-screened", "ranks": 4, "platform": "local", "kernel": "vpic-io",
        "args": ["--particles", "4096"]})
    for i in range(6):
        config = {"mpiio": {"cb_nodes": i + 1}}
        store.add_evaluation(cid, config=config, workload="vpic-io", ranks=4, platform="local",
                             source="sim", status="ok", rate_mbs=50.0 + 10 * i)
        for repetition in range(2):
            store.add_evaluation(cid, config=config, workload="vpic-io", ranks=4,
                                 platform="local", source="real", status="ok",
                                 repetition=repetition, rate_mbs=40.0 + 12 * i + repetition)
    best = {"mpiio": {"cb_nodes": 6}}
    for repetition, rate in ((2, 90.0), (3, 92.0)):
        store.add_evaluation(cid, config=best, workload="vpic-io", ranks=4, platform="local",
                             source="real", status="ok", repetition=repetition, rate_mbs=rate,
                             details={"label": "confirm"})
    for round_index in range(6):  # the summary's pairs, the order alternating
        for label, rate, config in (("default", 30.0 + round_index, {}),
                                    ("tuned", 90.0 + round_index, best)):
            store.add_evaluation(cid, config=config, workload="vpic-io", ranks=4,
                                 platform="local", source="real", status="ok", rate_mbs=rate,
                                 details={"label": label, "round": round_index})
    return cid
