"""The files a new I/O library touches outside its own folders, as tuner/README.md lists them
("Where a new I/O library goes"), are the files whose code names PnetCDF, the library added
last: derived from the repository, so that the list (and its count) cannot grow unseen.

Code is read without its comments and docstrings (a comment naming PnetCDF as an example is
not an edit for it); its own files, the tests and the generated tables are left out, and
Markdown files are its docs, which the section must name."""

from __future__ import annotations

import io
import re
import subprocess
import tokenize
from pathlib import Path

from iotwin.core import paths

LIBRARY = "pnetcdf"
ROOT = paths.repo_root()
# its own files: the interposer layer's folder, the kernels' output, iosim's library models
OWN = (f"interposer/src/{LIBRARY}/", f"kernels/common/{LIBRARY}_output.", "sim-models/src/iolib/")
# rewritten by `python -m iotwin.workloads.typegen` and `python -m iotwin.config.typegen`
GENERATED = ("tuner/iotwin/workloads/types.py", "tuner/iotwin/config/types.py")
C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
HASH_COMMENT = re.compile(r"#[^\n]*")


def python_code(text: str) -> str:
    """A Python source without its comments and docstrings (strings standing as statements)."""
    kept, previous = [], tokenize.NEWLINE
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        statement = previous in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT)
        if token.type != tokenize.COMMENT and not (token.type == tokenize.STRING and statement):
            kept.append(token.string)
        if token.type != tokenize.COMMENT:
            previous = token.type
    return " ".join(kept)


def code(path: str) -> str:
    text = (ROOT / path).read_text(errors="replace")
    suffix = Path(path).suffix
    if suffix in (".c", ".h", ".cpp", ".hpp"):
        return C_COMMENT.sub("", text)
    if suffix == ".py":
        return python_code(text)
    if suffix in (".yaml", ".cmake", ".txt") or Path(path).name == "Makefile":
        return HASH_COMMENT.sub("", text)
    return text


def naming_the_library() -> set[str]:
    """The tracked files outside its own, the tests and the generated tables whose code (a
    Markdown file: its text) names the library."""
    listed = subprocess.run(["git", "grep", "-l", "-i", LIBRARY], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    return {path for path in listed
            if not path.startswith((*OWN, "tests/")) and path not in GENERATED
            and LIBRARY in code(path).lower()}


def section() -> str:
    text = (ROOT / "tuner" / "README.md").read_text()
    start = text.index("### Where a new I/O library goes")
    end = re.compile(r"^##", re.MULTILINE).search(text, start + 4)
    return text[start:end.start() if end else len(text)]


def test_the_readme_lists_every_file_outside_the_librarys_own() -> None:
    text = section()
    numbered = re.findall(r"^\s*\d+\. `([^`]+)`", text, re.MULTILINE)
    [count] = re.findall(r"outside them, (\d+) files", text)
    assert int(count) == len(numbered) == len(set(numbered))
    derived = naming_the_library()
    named = set(re.findall(r"`([^`<>]+\.[a-z]+|Makefile|CMakeLists\.txt)`", text))
    docs = {path for path in derived if path.endswith(".md")}
    assert docs - named - {"tuner/README.md"} == set(), "docs the section does not name"
    tools = derived - docs - set(numbered)
    assert tools <= named, f"files outside the library's own that the section does not list: " \
                           f"{sorted(tools - named)}"
    assert set(numbered) <= derived, "listed, yet their code does not name the library"
    assert len(numbered) <= 8
