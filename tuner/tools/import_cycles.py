"""Print the cycles of iotwin's import graph (every ``import`` of an iotwin module, at module
level or inside a function), one strongly connected set of modules per line; exit 1 if any.

    python tuner/tools/import_cycles.py [--top-level]

``--top-level``: only the imports run when the module is imported (not those inside
functions), i.e. the cycles that can break an import.
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
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
