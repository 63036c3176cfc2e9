"""Runs (or resumes) a random-search campaign on the fake kernel, as `iotwin tune` would.

    tune_fake_kernel.py STORE [--resume ID]

The fake kernel runs without the interposer and the space is bound to a one-node local file
system without loading a platform model, so this needs neither the interposer nor the
simulator. Prints the campaign id first, so a test can kill it and resume it.
"""

import sys
from pathlib import Path

from iotwin.executors.local import LocalExecutor
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.store.database import Store
from iotwin.tuning.campaign import CampaignEvaluator, run_campaign
from iotwin.tuning.spec import CampaignSpec

FAKE_KERNEL = Path(__file__).with_name("fake_tuned_kernel.py")
SPEC = CampaignSpec(ranks=1, platform="local", space="local", strategy="random",
                    executor="local", real_budget=12, seed=7, repetitions=2, timeout_s=60,
                    command=(sys.executable, str(FAKE_KERNEL), "--sleep", "0.1"),
                    fixed={"cb_nodes": 1})


def main() -> int:
    store = Store(sys.argv[1])
    if "--resume" in sys.argv:
        campaign_id = int(sys.argv[sys.argv.index("--resume") + 1])
        spec = CampaignSpec.from_json(store.campaign(campaign_id).spec)
    else:
        spec = SPEC
        campaign_id = store.create_campaign("fake", kind="tune", spec=spec.to_json())
    print(campaign_id, flush=True)
    space = load_space(spec.space).bind(SpaceContext("ufs", ranks=4), spec.fixed)
    folder = Path(sys.argv[1]).parent
    (folder / "work").mkdir(exist_ok=True)  # not where the kernel's log is: a run's output
    executor = LocalExecutor(timeout_s=spec.timeout_s, scratch_root=folder / "runs",
                             workdir=folder / "work", preload=False)
    run_campaign(CampaignEvaluator(store, campaign_id, spec, space, executor))
    return 0


if __name__ == "__main__":
    sys.exit(main())
