"""MPI_Dims_create as the two MPIs answer it: the balanced process grid of N ranks over k axes.

The MPI standard (4.0, section 8.5.2) asks for dimensions "as close to each other as
possible", in non-increasing order. The two libraries read that differently, and a program's
decomposition follows its library's answer (720 ranks on 3 axes: MPICH 10x9x8, Open MPI
12x10x6):

- MPICH (src/mpi/topo/dims_create.c, MPIR_Dims_create, since 3.x) searches the factorizations
  for the one with the smallest spread between its largest and smallest factor;
- Open MPI (ompi/mpi/c/dims_create.c, assign()) deals the prime factors, largest first, each
  to the axis with the smallest product so far.
"""

from __future__ import annotations

from collections.abc import Iterator

from iotwin.core.errors import UserError


def dims_create(ranks: int, axes: int, mpi: str = "mpich") -> list[int]:
    """The grid (non-increasing) MPI_Dims_create(ranks, axes) gives under ``mpi``."""
    if ranks < 1 or axes < 1:
        raise UserError(f"a process grid needs ranks >= 1 and axes >= 1, got {ranks} and {axes}")
    if mpi == "openmpi":
        return _dealt(ranks, axes)
    return _most_balanced(ranks, axes)


def _dealt(ranks: int, axes: int) -> list[int]:
    grid = [1] * axes
    for prime in sorted(_prime_factors(ranks), reverse=True):
        smallest = min(range(axes), key=lambda a: (grid[a], a))
        grid[smallest] *= prime
    return sorted(grid, reverse=True)


def _most_balanced(ranks: int, axes: int) -> list[int]:
    best = min(_factorizations(ranks, axes, ranks), key=lambda f: (f[0] - f[-1], f))
    return list(best)


def _factorizations(ranks: int, axes: int, largest: int) -> Iterator[tuple[int, ...]]:
    """Every way to write ``ranks`` as ``axes`` factors, non-increasing, each <= largest."""
    if axes == 1:
        if ranks <= largest:
            yield (ranks,)
        return
    for factor in sorted(_divisors(ranks), reverse=True):
        if factor <= largest and factor ** axes >= ranks:
            for rest in _factorizations(ranks // factor, axes - 1, factor):
                yield (factor, *rest)


def _divisors(n: int) -> set[int]:
    return {d for i in range(1, int(n ** 0.5) + 1) if n % i == 0 for d in (i, n // i)}


def _prime_factors(n: int) -> list[int]:
    found, divisor = [], 2
    while divisor * divisor <= n:
        while n % divisor == 0:
            found.append(divisor)
            n //= divisor
        divisor += 1
    return found + ([n] if n > 1 else [])
