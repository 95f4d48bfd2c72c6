#!/usr/bin/env python3
"""Fails when a file includes one of a higher layer: the layers of core/ (core/README.md), then
core above stats, and cli above core; and when folders of core/ include each other in a cycle, even
within one layer (exec -> recipe -> exec). Prints each backward include as FILE:LINE: A -> B, and
each cycle with one include for each of its steps. Also fails when a file of core/ opens a namespace
other than its folder's (culprit::FOLDER, or one nested in it; util/ is culprit itself), except to
declare another folder's classes ahead."""
import pathlib
import re
import sys

# core/'s folders, lowest first; a folder may include its own layer and those below.
LAYERS = [
    ["util"],
    ["store", "host", "git", "exec", "parsers", "recipe"],
    ["build", "measure", "roofline"],
    ["bisect", "history"],
    ["evidence"],
    ["report"],
]
RANK = {folder: rank for rank, folders in enumerate(LAYERS) for folder in folders}
INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:core|stats|cli)/[^"]+)"')
NAMESPACE = re.compile(r"^namespace (culprit(?:::\w+)*) \{")
FORWARD = re.compile(r"^\s*(?:class|struct) \w+;\s*$")


def wrong_namespaces(relative, lines):
    """Each `namespace culprit...` a file of core/FOLDER opens that is not FOLDER's own (culprit for
    util/), unless the block only declares classes ahead."""
    folder = relative.split("/")[1]
    own = "culprit" if folder == "util" else f"culprit::{folder}"
    found = []
    for number, line in enumerate(lines, 1):
        match = NAMESPACE.match(line)
        if not match:
            continue
        name = match.group(1)
        if name == own or name.startswith(own + "::"):
            continue
        body = []
        for later in lines[number:]:
            if later.startswith("}"):
                break
            body.append(later)
        if body and all(FORWARD.match(text) or not text.strip() for text in body):
            continue
        found.append(f"{relative}:{number}: namespace {name} in core/{folder}/ (it is {own})")
    return found


def layer(path):
    """(library, rank within core) of a repository path such as core/measure/sampler.hpp."""
    parts = pathlib.PurePosixPath(path).parts
    if parts[0] != "core":
        return parts[0], None
    if len(parts) < 3:
        return "core", None  # a file at the top of core/: it has no folder, which is itself wrong
    return "core", RANK.get(parts[1])


def cycles(edges):
    """The cycles among folders: each strongly connected set of more than one folder, as a list of
    folders in a cycle through all of them where one exists, else the set sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for to in sorted(edges.get(node, {})):
            if to not in index:
                visit(to)
                low[node] = min(low[node], low[to])
            elif to in on_stack:
                low[node] = min(low[node], index[to])
        if low[node] == index[node]:
            members = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                members.append(top)
                if top == node:
                    break
            if len(members) > 1:
                found.append(sorted(members))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    bad = []
    edges = {}  # folder -> {folder it includes: first "FILE:LINE" that does}
    for library in ("stats", "core", "cli"):
        for file in sorted((root / library).rglob("*")):
            if file.suffix not in (".cpp", ".hpp", ".h", ".cu", ".cuh"):
                continue
            relative = file.relative_to(root).as_posix()
            lib, rank = layer(relative)
            if lib == "core" and rank is None:
                bad.append(f"{relative}: not in a folder of core/'s layers")
                continue
            lines = file.read_text(encoding="utf-8").splitlines()
            if lib == "core":
                bad.extend(wrong_namespaces(relative, lines))
            for number, line in enumerate(lines, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = match.group(1)
                to_lib, to_rank = layer(target)
                if lib == "stats" and to_lib != "stats":
                    bad.append(f"{relative}:{number}: stats includes {target}")
                elif lib == "core" and to_lib == "cli":
                    bad.append(f"{relative}:{number}: core includes {target}")
                elif lib == "core" and to_lib == "core":
                    if to_rank is None:
                        bad.append(f"{relative}:{number}: {target} is in no layer")
                    elif to_rank > rank:
                        bad.append(f"{relative}:{number}: layer {rank} includes layer {to_rank}: "
                                   f"{target}")
                    folder, to_folder = relative.split("/")[1], target.split("/")[1]
                    if folder != to_folder:
                        edges.setdefault(folder, {}).setdefault(to_folder, f"{relative}:{number}")
    for members in cycles(edges):
        steps = [f"{a} -> {b} ({edges[a][b]})" for a in members for b in members
                 if b in edges.get(a, {})]
        bad.append(f"folders include each other: {', '.join(members)}: " + "; ".join(steps))
    for line in bad:
        print(line)
    if bad:
        print(f"check-layers: {len(bad)} backward includes, folder cycles or namespaces not their "
              "folder's (see core/README.md)",
              file=sys.stderr)
        return 1
    print("check-layers: every include goes down the layers, no folders include each other, and "
          "each folder's code is in its namespace")
    return 0


if __name__ == "__main__":
    sys.exit(main())
