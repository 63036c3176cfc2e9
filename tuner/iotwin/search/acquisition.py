"""Which runs sim-screened asks for next, and when it has learnt enough: the knowledge gradient
over the grey-box surrogate's beliefs (iotwin.search.surrogate), against the noise of the runs
(iotwin.search.noise).

A campaign recommends one of the configs it measured. A run (of a new config, or one more of a
measured one) is worth what it is expected to raise the best belief among the measured configs,
the knowledge gradient of Frazier, Powell and Dayanik ("The knowledge-gradient policy for
correlated normal beliefs", INFORMS J. Computing 21, 2009), with the recommendation restricted
to measured configs: a new config joins them. With beliefs mean m and covariance S over the
measured configs M and the option o, one run of o (noise variance v) moves every mean along
one standard normal Z::

    after the run: m_i + b_i Z,   b_i = S[i, o] / sqrt(S[o, o] + v)
    KG(o) = E[max over M and o of (m_i + b_i Z)] - max over M of m_i

which one number compares a new config with a repeat of a contender: a new config promises
what its beliefs leave open, a repeat what it would settle among contenders whose runs lie
within the noise. A batch is chosen greedily, each choice's run taken as if it had come back
at its mean (the kriging believer: the covariance shrinks, the means stay), so that the next
choice goes where the first does not already teach. Where no run promises anything (the beliefs
hold the best measured settled), the run goes to the first unmeasured option, the screening's
most hopeful, rather than to a repeat that cannot change the recommendation either.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

_NOTHING = 1e-6  # a gain in the best log rate below this is none (a millionth of the rate)


def expected_max(means: Sequence[float], slopes: Sequence[float]) -> float:
    """E[max_i (means_i + slopes_i Z)] for a standard normal Z, exactly: the upper envelope
    of the lines, integrated piece by piece (Frazier et al. 2009, Algorithm 1)."""
    lines = sorted(zip(slopes, means, strict=True))
    kept: list[tuple[float, float]] = []  # (slope, mean) on the envelope, slopes rising
    starts: list[float] = []  # where each kept line becomes the highest
    for slope, mean in lines:
        if kept and kept[-1][0] == slope:  # parallel: the higher one (sorted last) stays
            kept.pop()
            starts.pop()
        while kept:
            start = (kept[-1][1] - mean) / (slope - kept[-1][0])
            if len(kept) > 1 and start <= starts[-1]:
                kept.pop()
                starts.pop()
                continue
            break
        starts.append(start if kept else -math.inf)
        kept.append((slope, mean))
    ends = [*starts[1:], math.inf]
    return sum(mean * (_cdf(end) - _cdf(start)) + slope * (_pdf(start) - _pdf(end))
               for (slope, mean), start, end in zip(kept, starts, ends, strict=True))


def knowledge_gradient(mean: np.ndarray, cov: np.ndarray, measured: Sequence[int],
                       option: int, noise_variance: float) -> float:
    """What one run of ``option`` (an index into mean/cov) is expected to add to the best
    belief among ``measured`` (indices; ``option`` among them: a repeat)."""
    among = list(dict.fromkeys([*measured, option]))
    slopes = cov[among, option] / math.sqrt(max(cov[option, option] + noise_variance, 1e-12))
    best = max(mean[i] for i in measured) if measured else -math.inf
    return expected_max(mean[among].tolist(), slopes.tolist()) - best


def choose_runs(mean: np.ndarray, cov: np.ndarray, measured: Sequence[int],
                options: Sequence[int], count: int, noise_variance: float) -> list[int]:
    """Up to ``count`` of ``options`` (indices; a measured one is a repeat), one at a time,
    each the highest knowledge gradient once the runs chosen before it are believed; where
    none gains anything, the first unmeasured option left (``options`` in order of hope)."""
    cov = np.array(cov, dtype=float)
    measured, left = list(measured), list(options)
    chosen: list[int] = []
    while left and len(chosen) < count:
        gains = [knowledge_gradient(mean, cov, measured, o, noise_variance) for o in left]
        option = left.pop(_most_promising(gains, [o not in measured for o in left]))
        chosen.append(option)
        cov = cov - np.outer(cov[:, option], cov[option, :]) / (cov[option, option]
                                                                + noise_variance)
        if option not in measured:
            measured.append(option)
    return chosen


def _most_promising(gains: Sequence[float], unmeasured: Sequence[bool]) -> int:
    """The option of highest gain, or while none gains anything, the first unmeasured one."""
    best = int(np.argmax(gains))
    if gains[best] > _NOTHING:
        return best
    return next((i for i, new in enumerate(unmeasured) if new), best)


def _cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _pdf(x: float) -> float:
    return 0.0 if math.isinf(x) else math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
