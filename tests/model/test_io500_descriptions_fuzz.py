"""No IO500 system description crashes the procurement path: any record, with its fields
replaced by other plausible or hostile values, is either a model whose two IO500 write phases
simulate (a rate within its ceiling) or one clear error naming the field; never an internal
error or a simulator crash."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.model.io500_description import load_records, sheet_of_record
from iotwin.model.platform_sheet import parse_sheet, platform_tree
from iotwin.model.platforms import parse_platform
from iotwin.model.sim import simulate
from iotwin.observations.io500 import phase_workload

RECORDS = load_records(paths.repo_root() / "validation" / "data" / "io500-train.json")
TEXT = st.sampled_from(["NVMe", "SSD", "HDD", "NL-SAS 7.2K", "tape", "", "Optane", "SAS",
                        "InfiniBand HDR", "2x EDR", "Ethernet 100Gbps", "Slingshot", "Aries",
                        "OPA", "IB", "carrier pigeon", "DDN", "NetApp", "lustre", "gpfs",
                        "beegfs", "DGX-2H", "\u202e", "x" * 300])
COUNT = st.one_of(st.integers(min_value=-3, max_value=5000), st.none(), st.just(True),
                  st.just(10**9), st.floats(allow_nan=True), TEXT)
FIELDS = ("client_nodes", "procs_per_node", "ds_nodes", "ds_storage_devices", "md_nodes",
          "ds_storage_type", "ds_storage_interface", "ds_network", "storage_vendor",
          "filesystem_family", "system")


def test_each_field_replaced_by_text_or_an_absurd_count_is_one_error() -> None:
    for field in FIELDS[:5]:
        for value in ("x" * 300, 10**9, -1, 2.5, True):
            try:
                sheet_of_record({**RECORDS[0], field: value}, "fuzz.json")
            except UserError as error:
                assert field in str(error)
            else:
                raise AssertionError(f"{field}={value!r} accepted")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(RECORDS),
       changes=st.dictionaries(st.sampled_from(FIELDS), st.one_of(COUNT, TEXT), max_size=4))
def test_any_description_is_a_model_that_simulates_or_one_error(base: dict,
                                                                 changes: dict) -> None:
    record = {**base, **changes}
    try:
        sheet = parse_sheet(sheet_of_record(record, "fuzz.json"), "fuzz.json")
        platform = parse_platform(platform_tree(sheet), "fuzz.json")
    except UserError as error:
        assert str(error).startswith("fuzz.json") and "\n" not in str(error)
        return
    nodes = min(int(record["client_nodes"]), 8)
    for phase in ("easy-write", "hard-write"):
        work = phase_workload(platform, phase, nodes * 2, nodes, segments=2)
        [result] = simulate(platform, work, [{}], jobs=1)
        assert result.ok, result.error
        assert result.rate_mbs and result.rate_mbs <= result.ceiling_mbs * 1.0001
