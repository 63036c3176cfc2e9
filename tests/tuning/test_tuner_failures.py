"""A crashing and a hanging kernel become failed evaluations; the campaign still finishes."""

from __future__ import annotations

import sys
from pathlib import Path

from iotwin.executors.local import LocalExecutor
from iotwin.search import run_strategy
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.store.database import Store
from iotwin.tuning.campaign import CampaignEvaluator
from iotwin.tuning.spec import CampaignSpec
from support.programs import PROGRAMS

FAKE_KERNEL = PROGRAMS / "fake_tuned_kernel.py"
ONLY_CB_NODES = {"transfer_mode": "collective", "romio_cb_write": "enable",
                 "cb_buffer_size": None, "alignment": None, "chunk_size": None,
                 "meta_block_size": None, "collective_metadata": False, "fill_time": "ifset"}


def test_crash_and_hang_are_failed_evaluations(tmp_path: Path) -> None:
    # cb_nodes 1 runs, 2 hangs, 4 crashes (see the fake kernel)
    space = load_space("local").bind(SpaceContext("ufs", ranks=4), ONLY_CB_NODES)
    spec = CampaignSpec(ranks=1, platform="local", space="local", strategy="exhaustive",
                        executor="local", real_budget=10, timeout_s=3.0,
                        command=(sys.executable, str(FAKE_KERNEL)))
    executor = LocalExecutor(timeout_s=3.0, scratch_root=tmp_path / "runs", workdir=tmp_path,
                             preload=False)
    with Store(tmp_path / "store.db") as store:
        campaign_id = store.create_campaign("failures", kind="tune", spec=spec.to_json())
        campaign = CampaignEvaluator(store, campaign_id, spec, space, executor)
        run_strategy("exhaustive", campaign, seed=0, settings={})

        rows = store.evaluations(campaign_id, source="real")
        by_nodes = {row.config["mpiio"]["cb_nodes"]: row for row in rows}
        assert sorted(by_nodes) == [1, 2, 4] and len(rows) == 3
        assert by_nodes[1].status == "ok" and by_nodes[1].rate_mbs == 200.0
        assert by_nodes[2].status == "timeout"
        assert by_nodes[4].status == "failed" and by_nodes[4].error
        best = campaign.best()
        assert best is not None and best.config["mpiio"]["cb_nodes"] == 1
        assert [m.rate for m in campaign.measured.values()].count(None) == 2
