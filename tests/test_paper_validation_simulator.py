"""The paper validation on the real simulator and platform models, on a small subset of rows."""

from __future__ import annotations

import pytest
from iotwin import paper_validation


@pytest.fixture(scope="module")
def stampede_vpic() -> paper_validation.PaperValidation:
    return paper_validation.run_paper_validation(platforms=["stampede"], kernels=["VPIC-IO"],
                                                 loo=False, max_evaluations=8)


def test_the_fit_does_not_worsen_the_loss_on_the_real_model(
        stampede_vpic: paper_validation.PaperValidation) -> None:
    (fit,) = stampede_vpic.fits
    assert fit.loss_after <= fit.loss_before
    platform_yaml = paper_validation.paths.platforms_dir() / "stampede.yaml"
    assert platform_yaml.exists()


def test_every_selected_row_is_simulated(
        stampede_vpic: paper_validation.PaperValidation) -> None:
    assert [r.setting for r in stampede_vpic.rows] == ["default", "tuned"]
    assert all(r.prior_mbs and r.fitted_mbs for r in stampede_vpic.rows)
    tuned = stampede_vpic.rows[1]
    assert tuned.origin == "model optimum" and tuned.config
    assert stampede_vpic.cases[0].published_speedup == pytest.approx(2328 / 394)
