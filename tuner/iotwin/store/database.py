"""The results store: every evaluation (simulated, real, twin) and calibration, in SQLite.

One file, four tables:

- ``campaigns``: a named group of evaluations (an ``iotwin run``, a tuning campaign, a study)
  with its spec as JSON, so a killed campaign can be resumed from the store alone.
- ``evaluations``: one row per measured or predicted repetition of one config on one workload
  and platform: ``source`` is ``sim`` | ``real`` | ``twin``; ``status`` is ``ok`` | ``failed`` |
  ``timeout``; the config is kept as YAML text plus a canonical hash to find "already measured"
  configs; ``effective`` holds what the interposer reported as applied / effective.
- ``calibrations``: fitted platform parameters with their fit and held-out errors.
- ``jobs``: real runs handed to a scheduler (a Slurm job) and not collected yet, by the run
  they are (config hash, repetition, details) and the scheduler's handle (job id, run
  directory): a campaign killed with jobs queued finds them here when it resumes, so no
  run is lost or run twice. ``state`` is ``queued`` until the result is stored
  (``collected``) or the job is cancelled (``cancelled``).

The database runs in WAL mode with ``synchronous=FULL`` and every ``add_*`` call is its own
transaction: a row is on disk when the call returns, so a crash, a full disk or a store made
read-only loses nothing measured before (a :class:`StoreError` names the store), and
readers (a progress display, ``iotwin show``) never block the writer. ``add_evaluations``
stores a batch (a generation's predictions) in one transaction: all its rows or none, for
one synced commit instead of one per row.

The file says it is ours: SQLite's ``application_id`` is :data:`APPLICATION_ID` and its
``user_version`` the schema version, both set when the store is created. Any other SQLite file
(another application id, or tables that are not the store's) and a store of a newer schema are
refused before anything is written to them, so ``--store`` on another program's database
leaves it as it was. A store made before the id was set (version 1 or 2, the store's tables
alone) is taken as ours and given the id when opened for writing.

``Store(path, read_only=True)`` reads a store without writing anything, the WAL's shared
memory file included: a store on a read-only file system, or whose file or folder the user
may not write, can still be shown and reported on.

Location: ``--store PATH``, else ``$IOTWIN_STORE``, else ``./iotwin.db`` (see `resolve_path`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from iotwin.config.types import Config
from iotwin.config.validation import validate_config
from iotwin.core.errors import UserError
from iotwin.core.hashing import canonical_json, config_hash
from iotwin.core.run_records import RunResult, Source, Status, Target
from iotwin.core.text import printable, valid_utf8
from iotwin.core.yaml_files import dump_by_libyaml
from iotwin.store.details import StoredDetails, checked

SCHEMA_VERSION = 2
#: SQLite's ``application_id`` of an iotwin store: "iotw" in ASCII
APPLICATION_ID = 0x696F7477
DEFAULT_FILENAME = "iotwin.db"
#: the store's tables at each schema version (SQLite's own, ``sqlite_*``, aside)
_TABLES = {1: {"campaigns", "evaluations", "calibrations"},
           2: {"campaigns", "evaluations", "calibrations", "jobs"}}

_JOBS_SCHEMA = """
CREATE TABLE jobs (
    id           INTEGER PRIMARY KEY,
    campaign_id  INTEGER REFERENCES campaigns(id),
    run_key      TEXT NOT NULL,           -- JSON: config hash, repetition, details
    handle       TEXT NOT NULL,           -- JSON: the executor's (job id, run directory, ...)
    state        TEXT NOT NULL CHECK (state IN ('queued', 'collected', 'cancelled')),
    created      REAL NOT NULL
);
CREATE INDEX jobs_by_campaign ON jobs(campaign_id, state);
"""

_SCHEMA = """
CREATE TABLE campaigns (
    id       INTEGER PRIMARY KEY,
    name     TEXT NOT NULL,
    kind     TEXT NOT NULL,               -- run | tune | calibrate | study | ...
    spec     TEXT NOT NULL DEFAULT '{}',  -- JSON: what is needed to resume / reproduce it
    created  REAL NOT NULL                -- seconds since the epoch (UTC)
);
CREATE TABLE evaluations (
    id           INTEGER PRIMARY KEY,
    campaign_id  INTEGER REFERENCES campaigns(id),
    config_yaml  TEXT NOT NULL,
    config_hash  TEXT NOT NULL,
    workload     TEXT NOT NULL,           -- e.g. "vpic-io --particles 1048576"
    ranks        INTEGER NOT NULL,
    platform     TEXT NOT NULL,           -- platform model name, or the machine measured on
    source       TEXT NOT NULL CHECK (source IN ('sim', 'real', 'twin')),
    repetition   INTEGER NOT NULL DEFAULT 0,
    status       TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'timeout')),
    predicted_s  REAL,
    measured_s   REAL,
    rate_mbs     REAL,
    bytes        INTEGER,
    phases       TEXT NOT NULL DEFAULT '{}',  -- JSON: phase -> seconds
    effective    TEXT NOT NULL DEFAULT '[]',  -- JSON: interposer reports, one per file
    error        TEXT,
    details      TEXT NOT NULL DEFAULT '{}',  -- JSON: anything else (generation, seed, ...)
    created      REAL NOT NULL
);
CREATE INDEX evaluations_by_campaign ON evaluations(campaign_id);
CREATE INDEX evaluations_by_config ON evaluations(config_hash, workload, ranks, platform);
CREATE TABLE calibrations (
    id             INTEGER PRIMARY KEY,
    campaign_id    INTEGER REFERENCES campaigns(id),
    platform       TEXT NOT NULL,
    parameters     TEXT NOT NULL,         -- JSON: parameter -> fitted value
    fit_error      REAL,
    heldout_error  REAL,
    details        TEXT NOT NULL DEFAULT '{}',
    created        REAL NOT NULL
);
CREATE INDEX calibrations_by_platform ON calibrations(platform, created);
""" + _JOBS_SCHEMA


def one_line(error: object) -> str:
    """SQLite's message as one line of an error: a damaged schema's message quotes the
    schema's text, newlines and all."""
    return printable(" ".join(str(error).split()))[:300]


class StoreError(UserError):
    """The store could not be read or written (disk full, read-only, damaged); every row
    committed before is still there."""

    def __init__(self, path: Path, error: sqlite3.DatabaseError) -> None:
        super().__init__(f"{path}: the results store failed: {one_line(error)}; every row "
                         "stored before is kept")
        self.path = path


@functools.cache
def _columns() -> dict[str, list[str]]:
    """The columns of each table of this schema version, as SQLite reports them."""
    made = sqlite3.connect(":memory:")
    try:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                made.execute(statement)
        return {table: [row[1] for row in made.execute(f"PRAGMA table_info({table})")]
                for table in _TABLES[SCHEMA_VERSION]}
    finally:
        made.close()


def _lenient_text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def workload_of(target: Target) -> str:
    """How a run's target is named in ``evaluations.workload``: the program and its arguments,
    as one printable line (a control character or a byte that is not UTF-8 escaped)."""
    return printable(" ".join((target.kernel, *target.args) if target.kernel
                              else target.command))


def resolve_path(cli_value: str | os.PathLike[str] | None = None) -> Path:
    """The store to use: the ``--store`` value, else ``$IOTWIN_STORE``, else ``./iotwin.db``."""
    return Path(cli_value or os.environ.get("IOTWIN_STORE") or DEFAULT_FILENAME)


@dataclass(frozen=True)
class Campaign:
    id: int
    name: str
    kind: str
    spec: dict[str, Any]
    created: float


@dataclass(frozen=True)
class Evaluation:
    """One row of ``evaluations``; ``config`` is the parsed ``config_yaml``."""

    id: int
    campaign_id: int | None
    config: Config
    config_hash: str
    workload: str
    ranks: int
    platform: str
    source: Source
    repetition: int
    status: Status
    predicted_s: float | None
    measured_s: float | None
    rate_mbs: float | None
    bytes: int | None
    phases: dict[str, float]
    effective: list[dict[str, Any]]
    error: str | None
    details: dict[str, Any]
    created: float

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def run_result(self) -> RunResult:
        """The run this row records (the inverse of :meth:`Store.add_run`)."""
        return RunResult(self.status, total_s=self.measured_s or self.predicted_s,
                         rate_mbs=self.rate_mbs, bytes=self.bytes, phases=dict(self.phases),
                         reports=list(self.effective), error=self.error)


@dataclass(frozen=True)
class Calibration:
    id: int
    campaign_id: int | None
    platform: str
    parameters: dict[str, float]
    fit_error: float | None
    heldout_error: float | None
    details: dict[str, Any]
    created: float


JobState = Literal["queued", "collected", "cancelled"]


@dataclass(frozen=True)
class Job:
    """A run handed to a scheduler; ``run_key`` and ``handle`` parsed from their JSON."""

    id: int
    campaign_id: int
    run_key: dict[str, Any]
    handle: dict[str, Any]
    state: JobState
    created: float


_JSON_COLUMNS = {"spec", "phases", "effective", "details", "parameters", "run_key", "handle"}


def _decode_row(row: sqlite3.Row, where: str) -> dict[str, Any]:
    """A row's columns, its JSON and YAML ones parsed; a UserError naming ``where`` (the store
    and the row) and the column when one does not parse or is not of its kind."""
    decoded: dict[str, Any] = {}
    for key in row.keys():  # noqa: SIM118 (sqlite3.Row is not a dict)
        try:
            decoded[key] = _column_value(key, row[key])
        except (ValueError, TypeError, yaml.YAMLError) as error:
            raise UserError(f"{where}: column {key} is not what iotwin stores: "
                            f"{printable(str(error).splitlines()[0])}") from error
    if "details" in decoded:
        decoded["details"] = StoredDetails(decoded["details"])
    if "config_yaml" in decoded:
        decoded["config"] = validate_config(decoded.pop("config_yaml"), f"{where}: its config")
    return decoded


#: the kind of each JSON column's value
_JSON_KINDS: dict[str, type] = {"spec": dict, "phases": dict, "effective": list,
                                "details": dict, "parameters": dict, "run_key": dict,
                                "handle": dict}


def _column_value(column: str, value: Any) -> Any:
    if column == "config_yaml":
        return yaml.safe_load(value) if isinstance(value, str) else value
    if column not in _JSON_COLUMNS:
        return value
    parsed = json.loads(value)
    if not isinstance(parsed, _JSON_KINDS[column]):
        raise TypeError(f"JSON of a {type(parsed).__name__}, not a "
                        f"{_JSON_KINDS[column].__name__}")
    if column == "parameters" and isinstance(parsed, dict) and not all(
            isinstance(v, int | float) and not isinstance(v, bool)
            and not (isinstance(v, float) and not math.isfinite(v))
            for v in parsed.values()):
        raise TypeError("a fitted parameter that is not a finite number")
    return parsed


class Store:
    """An open results database. Use as a context manager, or call `close`.

    >>> with Store("iotwin.db") as store:
    ...     cid = store.create_campaign("demo", kind="run")
    ...     store.add_evaluation(cid, config={}, workload="vpic-io", ranks=4,
    ...                          platform="local", source="real", status="ok", measured_s=1.2)
    """

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        if read_only and not self.path.is_file():
            raise UserError(f"{self.path}: no results store there")
        # isolation_level=None: autocommit, so each add_* is one committed transaction.
        try:
            self._db = (self._connect_read_only() if read_only else
                        sqlite3.connect(self.path, timeout=30.0, isolation_level=None))
        except sqlite3.DatabaseError as error:
            raise UserError(f"{self.path}: cannot open the results store: "
                            f"{one_line(error)}") from error
        self._db.row_factory = sqlite3.Row
        # text a damaged page made undecodable is read as surrogates, so that the row's checks
        # (store/details.py) name it, where sqlite3 would raise UnicodeDecodeError
        self._db.text_factory = _lenient_text
        try:
            version = self._ours()
            self._check_intact(version)
            self._check_columns(version)
            self._db.execute("PRAGMA foreign_keys=ON")
            if not read_only:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._migrate(version)
        except UnicodeDecodeError as error:  # SQLite's own message quotes a damaged schema
            self._db.close()
            raise UserError(f"{self.path}: cannot open as an iotwin store: its schema is "
                            f"damaged (bytes that are not UTF-8)") from error
        except (sqlite3.Error, StoreError) as error:
            self._db.close()
            cause = error.__cause__ if isinstance(error, StoreError) else error
            raise UserError(f"{self.path}: cannot open as an iotwin store: "
                            f"{one_line(cause)}") from error
        except UserError:
            self._db.close()
            raise

    def _connect_read_only(self) -> sqlite3.Connection:
        """The store opened to read, nothing written beside it. A store closed cleanly has no
        WAL file and all its rows in the file: opened ``immutable`` (no lock, no WAL, no
        shared memory made). One with a WAL (a writer has it open, or was killed) is opened
        ``mode=ro`` to read the WAL's rows too, else, where its shared memory cannot be made
        (a read-only folder or file system), ``immutable``: the file as it is."""
        uri = self.path.resolve().as_uri()
        if Path(f"{self.path}-wal").exists():
            db = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=30.0,
                                 isolation_level=None)
            try:
                db.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return db
            except sqlite3.OperationalError:
                db.close()
        return sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None)

    def _ours(self) -> int:
        """The schema version of the store, after checking the file is one (nothing written
        yet): another application's SQLite file or a newer store is a UserError, and so is
        an empty file opened to read. 0 is an empty file to make the store in."""
        application = self._db.execute("PRAGMA application_id").fetchone()[0]
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite^_%' "
            "ESCAPE '^'")}
        untouched = "; it is left untouched"
        if application not in (0, APPLICATION_ID):
            raise UserError(f"{self.path}: not an iotwin store (an SQLite file of another "
                            f"application, id {application:#x}){untouched}")
        if application == APPLICATION_ID and version > SCHEMA_VERSION:
            raise UserError(f"{self.path}: store schema v{version} is newer than this iotwin "
                            f"(v{SCHEMA_VERSION}); upgrade iotwin")
        if not tables and version == 0:
            if self.read_only:
                raise UserError(f"{self.path}: an empty file, not an iotwin store")
            return 0
        if version not in _TABLES or tables != _TABLES[version]:
            foreign = sorted(tables - _TABLES[SCHEMA_VERSION]) or sorted(tables)
            raise UserError(f"{self.path}: not an iotwin store (an SQLite file with tables "
                            f"{printable(', '.join(foreign))[:200]}, schema version {version})"
                            f"{untouched}")
        return version

    @contextmanager
    def _sqlite_errors(self) -> Iterator[None]:
        try:
            yield
        except (sqlite3.IntegrityError, sqlite3.ProgrammingError):
            raise  # a row iotwin should not have made: a bug, not the store's state
        except sqlite3.DatabaseError as error:  # full, read-only, locked, damaged, I/O
            raise StoreError(self.path, error) from error
        except UnicodeDecodeError as error:  # SQLite's message quoting a damaged page
            raise UserError(f"{self.path}: the results store is damaged (bytes that are not "
                            f"UTF-8 where SQLite expects text)") from error

    def _execute(self, sql: str, parameters: Sequence[Any] = ()) -> sqlite3.Cursor:
        """``sql`` run with ``parameters`` bound (text made valid UTF-8: an argument or a file
        name that is not would fail to bind); StoreError on any SQLite failure."""
        bound = tuple(valid_utf8(p) if isinstance(p, str) else p for p in parameters)
        with self._sqlite_errors():
            return self._db.execute(sql, bound)

    def _check_intact(self, version: int) -> None:
        """A store whose pages a damage left readable but inconsistent (a b-tree page pointing
        into another table's rows) is refused, not read into rows it never held: SQLite's
        ``quick_check`` walks every page once (milliseconds for a store of thousands of runs)."""
        if version == 0:
            return
        verdict = self._db.execute("PRAGMA quick_check(1)").fetchone()[0]
        if verdict != "ok":
            raise UserError(f"{self.path}: the results store is damaged ({one_line(verdict)}); "
                            f"it is left untouched")

    def _check_columns(self, version: int) -> None:
        """Every table's columns as this iotwin makes them: a store whose schema a damaged
        page changed (a column renamed) is refused untouched, not read into wrong fields."""
        for table in sorted(_TABLES.get(version, ())):
            found = [row[1] for row in self._db.execute(f"PRAGMA table_info({table})")]
            if found != _columns()[table]:
                raise UserError(f"{self.path}: not an iotwin store as this iotwin reads one: "
                                f"table {table} has columns "
                                f"{printable(', '.join(found))[:200]} (damaged?); it is left "
                                f"untouched")

    def _migrate(self, version: int) -> None:
        """The store brought to this schema version (its id set, for a store made before
        there was one)."""
        if version == 0:
            self._create_schema()
        elif version == 1:  # v2 added the jobs table
            self._run_script(_JOBS_SCHEMA, version=2)
        if self._execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            # a store made before the id: a read-only one stays as it is (its first write
            # says why it cannot be written)
            with contextlib.suppress(StoreError):
                self._execute(f"PRAGMA application_id={APPLICATION_ID}")

    def _create_schema(self) -> None:
        self._run_script(_SCHEMA, version=SCHEMA_VERSION)

    def _run_script(self, script: str, *, version: int) -> None:
        """Bring the schema to ``version`` with ``script``. The write lock is taken first, so
        two processes opening the store at once do not both run it; the loser sees the
        version and stops."""
        with self._transaction():
            if self._execute("PRAGMA user_version").fetchone()[0] < version:
                self._statements(script)
                self._execute(f"PRAGMA user_version={version}")
                self._execute(f"PRAGMA application_id={APPLICATION_ID}")

    def _statements(self, script: str) -> None:
        for statement in script.split(";"):
            if statement.strip():
                self._execute(statement)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One transaction around the block (IMMEDIATE: the write lock first), or none of it
        (a COMMIT that fails, on a full disk say, is rolled back too)."""
        self._execute("BEGIN IMMEDIATE")
        try:
            yield
            self._execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:  # SQLite may have rolled back already
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _insert(self, table: str, values: Mapping[str, Any]) -> int:
        columns = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        cursor = self._execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})",
                               tuple(values.values()))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def _rows(self, table: str, filters: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Decoded rows of ``table`` matching every filter that is not None, oldest first."""
        given = {column: value for column, value in filters.items() if value is not None}
        where = " AND ".join(f"{column} = ?" for column in given) or "1"
        rows = self._execute(f"SELECT * FROM {table} WHERE {where} ORDER BY id",
                             tuple(given.values()))
        with self._sqlite_errors():
            return [_decode_row(row, f"{self.path}: {table} row {row['id']}") for row in rows]

    def _row_by_id(self, table: str, row_id: int, what: str) -> dict[str, Any]:
        found = self._rows(table, {"id": row_id})
        if not found:
            raise UserError(f"{self.path}: no {what} {row_id}")
        return found[0]

    # -- campaigns ----------------------------------------------------------------------------

    def create_campaign(self, name: str, *, kind: str,
                        spec: Mapping[str, Any] | None = None) -> int:
        """A new campaign; returns its id."""
        return self._insert("campaigns", {"name": name, "kind": kind,
                                          "spec": json.dumps(dict(spec or {})),
                                          "created": time.time()})

    def update_campaign_spec(self, campaign_id: int, spec: Mapping[str, Any]) -> None:
        """Replace a campaign's spec (what a resume reads)."""
        self._execute("UPDATE campaigns SET spec = ? WHERE id = ?",
                         (json.dumps(dict(spec)), campaign_id))

    def campaign(self, campaign_id: int) -> Campaign:
        return Campaign(**self._row_by_id("campaigns", campaign_id, "campaign"))

    def campaigns(self, kind: str | None = None) -> list[Campaign]:
        return [Campaign(**row) for row in self._rows("campaigns", {"kind": kind})]

    # -- evaluations --------------------------------------------------------------------------

    def add_evaluation(self, campaign_id: int | None, *, config: Config,
                       workload: str, ranks: int, platform: str, source: Source,
                       status: Status, repetition: int = 0,
                       predicted_s: float | None = None, measured_s: float | None = None,
                       rate_mbs: float | None = None, bytes: int | None = None,
                       phases: Mapping[str, float] | None = None,
                       effective: list[dict[str, Any]] | None = None,
                       error: str | None = None,
                       details: Mapping[str, Any] | None = None) -> int:
        """Record one repetition; committed (durable) when this returns. Returns its id."""
        return self._insert("evaluations", {
            "campaign_id": campaign_id,
            "config_yaml": dump_by_libyaml(dict(config), sort_keys=True),
            "config_hash": config_hash(config),
            "workload": workload, "ranks": ranks, "platform": platform, "source": source,
            "repetition": repetition, "status": status,
            "predicted_s": predicted_s, "measured_s": measured_s, "rate_mbs": rate_mbs,
            "bytes": bytes,
            "phases": json.dumps(dict(phases or {})),
            "effective": json.dumps(effective or []),
            "error": error,
            "details": json.dumps(checked(details)),
            "created": time.time(),
        })

    def add_run(self, campaign_id: int | None, target: Target, run: RunResult, *,
                config: Config, platform: str, source: Source,
                repetition: int = 0, details: Mapping[str, Any] | None = None) -> int:
        """Record one run of ``target`` (a real or twin run, or a simulation when ``source`` is
        "sim", whose time is a prediction); its id."""
        time_s = {"predicted_s" if source == "sim" else "measured_s": run.total_s}
        return self.add_evaluation(
            campaign_id, config=config, workload=workload_of(target), ranks=target.ranks,
            platform=platform, source=source, status=run.status, repetition=repetition,
            rate_mbs=run.rate_mbs, bytes=run.bytes, phases=run.phases, effective=run.reports,
            error=run.error, details=details, **time_s)

    def add_evaluations(self, rows: Iterable[Mapping[str, Any]]) -> list[int]:
        """Record many evaluations in one transaction; their ids, in order.

        Each row holds `add_evaluation`'s arguments by name (``campaign_id`` included). The
        batch is durable when this returns, and a bad row stores none of them.
        """
        with self._transaction():
            return [self.add_evaluation(**row) for row in rows]

    def evaluations(self, campaign_id: int | None = None, *, source: Source | None = None,
                    status: Status | None = None, config_hash: str | None = None,
                    workload: str | None = None, ranks: int | None = None,
                    platform: str | None = None) -> list[Evaluation]:
        """Evaluations matching every given filter, oldest first."""
        return [Evaluation(**row) for row in self._rows("evaluations", {
            "campaign_id": campaign_id, "source": source, "status": status,
            "config_hash": config_hash, "workload": workload, "ranks": ranks,
            "platform": platform})]

    # -- calibrations -------------------------------------------------------------------------

    def add_calibration(self, platform: str, parameters: Mapping[str, float], *,
                        fit_error: float | None, heldout_error: float | None,
                        campaign_id: int | None = None,
                        details: Mapping[str, Any] | None = None) -> int:
        """Record a fitted platform model; returns its id (``fitted: <id>`` in platform YAML)."""
        return self._insert("calibrations", {
            "campaign_id": campaign_id, "platform": platform,
            "parameters": json.dumps(dict(parameters)),
            "fit_error": fit_error, "heldout_error": heldout_error,
            "details": json.dumps(checked(details)), "created": time.time(),
        })

    def calibration(self, calibration_id: int) -> Calibration:
        return Calibration(**self._row_by_id("calibrations", calibration_id, "calibration"))

    def calibrations(self, platform: str | None = None,
                     campaign_id: int | None = None) -> list[Calibration]:
        """Calibrations (of one platform, of one campaign, if given), oldest first."""
        return [Calibration(**row) for row in self._rows(
            "calibrations", {"platform": platform, "campaign_id": campaign_id})]

    def latest_calibration(self, platform: str | None = None,
                           campaign_id: int | None = None) -> Calibration | None:
        """The newest of ``calibrations(platform, campaign_id)``, if any."""
        found = self.calibrations(platform, campaign_id)
        return found[-1] if found else None

    # -- jobs ---------------------------------------------------------------------------------

    def add_job(self, campaign_id: int, run_key: Mapping[str, Any],
                handle: Mapping[str, Any]) -> int:
        """A run handed to the scheduler (``run_key`` says which run, ``handle`` how to find
        it again), queued; its id."""
        return self._insert("jobs", {"campaign_id": campaign_id,
                                     "run_key": canonical_json(run_key),
                                     "handle": json.dumps(dict(handle)), "state": "queued",
                                     "created": time.time()})

    def queued_jobs(self, campaign_id: int) -> list[Job]:
        """The campaign's jobs that were submitted and neither collected nor cancelled."""
        return [Job(**row) for row in self._rows("jobs", {"campaign_id": campaign_id,
                                                          "state": "queued"})]

    def update_job(self, job_id: int, *, handle: Mapping[str, Any] | None = None,
                   state: JobState | None = None) -> None:
        """A job resubmitted (its new ``handle``) or ended (``state``)."""
        if handle is not None:
            self._execute("UPDATE jobs SET handle = ? WHERE id = ?",
                             (json.dumps(dict(handle)), job_id))
        if state is not None:
            self._execute("UPDATE jobs SET state = ? WHERE id = ?", (state, job_id))
