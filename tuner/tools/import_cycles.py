"""Check iotwin's import graph (every ``import`` of an iotwin module, at module level or
inside a function): no cycle between modules, and no cycle between packages: each package
imports only the packages of the layers below its own (:data:`LAYERS`). Prints the package
graph, its cycles and every import against the layers; exit 1 if there is any.

    python tuner/tools/import_cycles.py [--top-level]

``--top-level``: only the imports run when the module is imported (not those inside
functions), i.e. the module cycles that can break an import.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "iotwin"


def module_names(package_dir: Path = PACKAGE_DIR) -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    names = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def imported(node: ast.AST, modules: dict[str, Path]) -> list[str]:
    """The iotwin modules one import statement names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in modules]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        found = []
        for alias in node.names:
            child = f"{node.module}.{alias.name}"
            if child in modules:
                found.append(child)
            elif node.module in modules:
                found.append(node.module)
        return found
    return []


def statements(tree: ast.Module, top_level: bool) -> list[ast.AST]:
    if not top_level:
        return list(ast.walk(tree))
    found: list[ast.AST] = []
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))
    return found


def import_graph(top_level: bool = False) -> dict[str, set[str]]:
    modules = module_names()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        graph[name] = {target for node in statements(tree, top_level)
                       for target in imported(node, modules) if target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            members = []
            while True:
                member = stack.pop()
                members.append(member)
                if member == node:
                    break
            if len(members) > 1:
                found.append(sorted(members))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


#: iotwin's packages, lowest first: a package may import its own modules and those of the
#: packages before it, never one after it. The top-level modules (cli, __main__) are the top.
LAYERS = (
    "core",          # shared records and small helpers: imports no other package
    "formats",       # what the formats share: bounds table, text reading, record schemas
    "config",        # the tuning config's schema
    "space",         # parameter spaces
    "search",        # strategies over a space
    "workloads",     # the workload format, replicated and captured workloads
    "model",         # platforms, the simulator, calibration fits, site rules
    "store",         # the SQLite results store
    "executors",     # where a config is measured
    "tuning",        # one tuning campaign and its pipeline
    "observations",  # what a calibration is fitted to
    "validation",    # how well the model predicts
    "studies",       # experiments, what-if, landscapes, strategy benchmarks
    "report",        # pages, plots and tables of what a store holds
    "commands",      # the command line, one module per subcommand
    "cli",
    "__main__",
)


def package_of(module: str) -> str:
    """``iotwin.store.database`` -> ``store``; the package's own ``iotwin`` for its root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        edges = packages.setdefault(package_of(module), set())
        edges.update(package_of(t) for t in targets if package_of(t) != package_of(module))
    return packages


def upward_imports(graph: dict[str, set[str]], layers: tuple[str, ...] = LAYERS
                   ) -> list[str]:
    """Every import of a module by one in a lower layer (or in a package the layers do not
    name), as ``importer -> imported``."""
    rank = {name: index for index, name in enumerate(layers)}
    rank["iotwin"] = -1  # the package root holds only its version
    found = []
    for module, targets in sorted(graph.items()):
        own = rank.get(package_of(module))
        for target in sorted(targets):
            theirs = rank.get(package_of(target))
            if own is None or theirs is None or theirs > own:
                found.append(f"{module} -> {target}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top-level", action="store_true",
                        help="only the imports run when a module is imported")
    args = parser.parse_args()
    graph = import_graph(args.top_level)
    found = cycles(graph)
    edges = sum(len(targets) for targets in graph.values())
    print(f"{len(graph)} modules, {edges} imports between them, {len(found)} cycle(s)")
    for members in found:
        print("cycle: " + " <-> ".join(members))
    packages = package_graph(graph)
    package_cycles = cycles(packages)
    upward = upward_imports(graph)
    print(f"{len(packages)} packages, {len(package_cycles)} cycle(s) between them, "
          f"{len(upward)} import(s) against the layers")
    for name in sorted(packages, key=lambda p: ((*LAYERS, p)).index(p)):
        print(f"  {name:13s} -> {', '.join(sorted(packages[name])) or '(nothing)'}")
    for members in package_cycles:
        print("package cycle: " + " <-> ".join(members))
    for line in upward:
        print("against the layers: " + line)
    return 1 if found or package_cycles or upward else 0


if __name__ == "__main__":
    sys.exit(main())
