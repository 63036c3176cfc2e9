# iotwin front door: `make demo` and `make test` work on a fresh Debian machine as root.
SHELL := /bin/bash
VENV  := .venv
PY    := $(VENV)/bin/python
BUILD := build
JOBS  ?= 2
# pytest-xdist workers: one more than the cores, so that while one test waits (on an MPI
# launch, a Slurm job, a killed program's timeout) the cores still have a test to run
# (tests/README.md: 12m51s on 2 workers, 11m19s on 3, the same CPU seconds).
TEST_WORKERS ?= $(shell echo $$(( $(JOBS) + 1 )))

# Everything the project needs from Debian. Installed only when missing. The Open MPI stack
# (its parallel HDF5, Debian's parallel h5py and netCDF) gets an interposer and kernels of its
# own (build/openmpi/); installing it makes Open MPI the default mpicc/mpiexec, so every MPICH
# use names MPICH's own (mpicc.mpich, mpiexec.mpich).
DEBIAN_PACKAGES := build-essential gfortran cmake pkg-config git \
  mpich libmpich-dev libhdf5-mpich-dev hdf5-tools libhdf5-doc \
  openmpi-bin libhdf5-openmpi-dev python3-h5py-mpi libnetcdf-mpi-dev libpnetcdf-dev pnetcdf-bin \
  libsimgrid-dev libyaml-dev nlohmann-json3-dev \
  python3 python3-venv python3-yaml fio strace valgrind ccache \
  slurm-wlm munge

.PHONY: all deps build python h5py-mpi optuna-gp demo test suite lint clean

all: build python

deps: .deps-stamp
.deps-stamp: Makefile
	@missing=$$(for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "iotwin: installing Debian packages:" $$missing; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
	@touch $@

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
	cmake --build $(BUILD) -j $(JOBS)

# The package and its dependencies installed by uv, which unpacks the wheels side by side and
# byte-compiles them on every core; pip does both a file at a time (from its wheel cache here:
# 68 CPU s, ~70 s wall, the setup's longest step once the C/C++ build comes from the compiler
# cache; uv: 24 s wall). pip stays for the parallel h5py below, built from source.
$(VENV)/.stamp: tuner/pyproject.toml | deps
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip uv
	$(VENV)/bin/uv pip install -q --python $(PY) --compile-bytecode -e 'tuner[dev]'
	@touch $@

python: $(VENV)/.stamp

# A parallel h5py as Python HPC users install it: mpi4py and h5py built from their PyPI
# sources against Debian's MPICH parallel HDF5 (minutes: built once). Kept beside the venv's
# serial h5py; the tests put it first on PYTHONPATH for the h5py programs they capture.
# mpi4py is built once, and h5py against it without pip's build isolation: an isolated build
# compiles a second mpi4py (the version h5py pins for building) only to build h5py. h5py's
# build requirements (its pyproject.toml's) go into the venv.
# -g0: with debug info, gcc needs over 20 GB to compile mpi4py's generated MPI.c.
H5PY_MPI := $(VENV)/h5py-mpi
MPICH_BUILD := CC=mpicc.mpich MPICC=mpicc.mpich HDF5_MPI=ON \
  HDF5_DIR=/usr/lib/x86_64-linux-gnu/hdf5/mpich CFLAGS="-O1 -g0" MAKEFLAGS=-j$(JOBS)
$(H5PY_MPI)/.stamp: | $(VENV)/.stamp
	$(PY) -m pip install -q "Cython>=3.0.0,<4" "pkgconfig>=1.5.5" "setuptools>=77.0.1"
	$(MPICH_BUILD) $(PY) -m pip install -q --no-binary=mpi4py --target $(H5PY_MPI) mpi4py
	$(MPICH_BUILD) PYTHONPATH=$(abspath $(H5PY_MPI)) $(PY) -m pip install -q --no-build-isolation --no-deps \
	  --no-binary=h5py --target $(H5PY_MPI) h5py
	@touch $@

h5py-mpi: $(H5PY_MPI)/.stamp

# Optuna's GP sampler (strategy optuna-gp) needs PyTorch, which PyPI ships only with its CUDA
# libraries (about 5 GB installed): installed on request, not by `make test` or `make demo`.
optuna-gp: python
	$(PY) -m pip install -q -e 'tuner[gp]'

# Only the Python trees that exist: git keeps no empty directories.
PY_TREES := $(wildcard tuner tests validation experiments bench)

lint: python
	$(VENV)/bin/ruff check $(PY_TREES)
	cd tuner && ../$(VENV)/bin/mypy iotwin

# The whole suite on every core: the setup steps side by side (the C/C++ build beside the
# venv, then the parallel h5py), then the tests shared between $(TEST_WORKERS) pytest-xdist
# workers, a file to one worker whole (tests/support/worker_groups.py), with the lint beside
# them (mypy's ~25 CPU s in the cores' idle moments, not before the first test); either
# failing fails `make test`. PYTEST_FLAGS: more options, e.g. `make test
# PYTEST_FLAGS=--cpu-times=40` for what each test costs in CPU.
# The Python trees are byte-compiled first: the suite starts hundreds of interpreters (the
# command line, benchmarks, programs), and where PYTHONDONTWRITEBYTECODE is set none of them
# writes its bytecode, so each would compile every module it imports again (tests/README.md).
PYTEST_FLAGS ?=
test:
	$(MAKE) --no-print-directory -j $(JOBS) build h5py-mpi
	$(PY) -m compileall -q $(filter-out tests,$(PY_TREES))
	$(MAKE) --no-print-directory -j 2 lint suite

# the tests alone, on a tree `make test` has set up
suite:
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_FLAGS) tests

demo: build python
	$(VENV)/bin/iotwin demo

clean:
	rm -rf $(BUILD) $(VENV) .deps-stamp
