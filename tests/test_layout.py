"""The house's layout rules (docs/architecture.md, issue 30), read from the source: no import
circle among the project's modules, counting the imports made inside functions too; no
module over 500 lines; no class over 200."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("chapters", "wiki", "bench")
MODULE_MAX_LINES = 500
CLASS_MAX_LINES = 200


def modules():
    """Return ``{dotted name: (path, is package)}`` for every module of :data:`PACKAGES`."""
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def imports(name, path, is_package, known):
    """Return the project's modules that module ``name`` imports, anywhere in it (a name
    imported from a package counts as its submodule when there is one)."""

    def project_module(dotted):
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(project_module(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.add(submodule if submodule in known else project_module(source))
    return found - {None, name}


def circles(graph):
    """Return the strongly connected components of ``graph`` with more than one module
    (Tarjan's algorithm, iterative), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_module_imports_itself_through_others():
    known = modules()
    graph = {name: imports(name, *known[name], known) & known.keys() for name in known}
    assert circles(graph) == []


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_over_500_lines_and_no_class_over_200():
    too_long = []
    for name, (path, _) in sorted(modules().items()):
        text = path.read_text()
        if text.count("\n") > MODULE_MAX_LINES:
            too_long.append((name, text.count("\n")))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > CLASS_MAX_LINES:
                    too_long.append((f"{name}.{node.name}", lines))
    assert too_long == []
