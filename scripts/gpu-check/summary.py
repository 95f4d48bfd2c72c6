"""summary.py OUT: the one-page summary of a GPU check (scripts/gpu-check.sh), in Markdown on
stdout, from what the check kept in OUT: machine.txt, steps.tsv, planted-commits.json and each
step's evidence JSON. Exit status 1 when a step did not give what was planted."""

import json
import os
import sys

out = sys.argv[1]


def load(name):
    try:
        with open(os.path.join(out, name), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def percent(x):
    return f"{100 * x:.1f}%"


def interval(ci):
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "-"


planted = load("planted-commits.json") or {}
backend = planted.get("backend", "?")
problems = []
lines = ["# GPU check", ""]
if backend == "cpu":
    lines += ["**Dry run**: a fake nvidia-smi (an H100), a fake ncu and the kernels' CPU twins; no "
              "figure below comes from a GPU.", ""]
with open(os.path.join(out, "machine.txt"), encoding="utf-8") as f:
    lines += ["```", f.read().rstrip(), "```", ""]

lines += ["| step | exit | expected | seconds |", "|---|---|---|---|"]
with open(os.path.join(out, "steps.tsv"), encoding="utf-8") as f:
    for row in f:
        name, expected, got, seconds = row.rstrip("\n").split("\t")
        ok = expected == "any" or got in expected.split("/")
        if not ok:
            problems.append(f"{name} exited {got}, expected {expected} (see {name}.txt)")
        lines.append(f"| {name} | {got} | {expected} | {seconds} |")
lines.append("")

env = load("env.json")
if env:
    for gpu in env.get("gpus") or []:
        lines.append(f"- GPU {gpu.get('index')}: {gpu.get('name')}, driver {gpu.get('driver_version')}, "
                     f"SM {gpu.get('sm_clock_mhz')} of {gpu.get('max_sm_clock_mhz')} MHz, memory "
                     f"{gpu.get('memory_clock_mhz')} MHz, clock event reasons "
                     f"{', '.join(gpu.get('clocks_event_reasons') or []) or 'none'}")
    if env.get("gpu_problem"):
        lines.append(f"- GPU problem: {env['gpu_problem']}")

run = load("run.json")
if run:
    peaks = run.get("roofline_peaks") or []
    for peak in peaks:
        lines.append(f"- peaks of {peak.get('device')}: {peak.get('flops_per_second', 0) / 1e9:.0f} "
                     f"GFLOP/s, {peak.get('bytes_per_second', 0) / 1e9:.0f} GB/s ({peak.get('source')})")
    lines += ["", "| case | metric | median | 95% CI width | roofline |", "|---|---|---|---|---|"]
    for m in run.get("measurements") or []:
        s = m.get("summary") or {}
        ci = s.get("ci")
        width = percent((ci[1] - ci[0]) / s["median"]) if ci and s.get("median") else "-"
        roof = m.get("roofline") or {}
        place = (f"{percent(roof['fraction'])} of its {roof.get('limiter')} bound"
                 if roof.get("fraction") is not None else "-")
        lines.append(f"| {m.get('case')} | {m.get('metric')} | {s.get('median', 0) * 1e6:.2f} µs | "
                     f"{width} | {place} |")
    lines.append("")

# The A/A pair must be the same on a GPU; the dry run's CPU twins on a shared machine may also be
# inconclusive, never slower or faster.
aa_verdicts = ("same",) if backend == "cuda" else ("same", "inconclusive")
for name, title, want in (("aa", "A/A compare", aa_verdicts), ("planted", "Planted regression", None),
                          ("ncu", "ncu on the culprit and its parent", None)):
    evidence = load(f"{name}.json")
    if not evidence:
        continue
    lines += [f"**{title}**", "", "| case | metric | ratio | 95% CI | verdict |", "|---|---|---|---|---|"]
    for c in evidence.get("comparisons") or []:
        lines.append(f"| {c.get('case')} | {c.get('metric')} | {c.get('ratio', 0):.3f} | "
                     f"{interval(c.get('ci'))} | {c.get('verdict')} |")
        if want and c.get("verdict") not in want:
            problems.append(f"{title}: {c.get('case')} is {c.get('verdict')}, expected "
                            f"{' or '.join(want)}")
    if name == "planted":
        verdicts = {c.get("case"): c.get("verdict") for c in evidence.get("comparisons") or []}
        if not any(case.startswith("saxpy") and v == "slower" for case, v in verdicts.items()):
            problems.append("the planted regression in saxpy was not found slower")
    lines.append("")

def broken_words(step):
    classified = step.get("classified")
    return "skipped" if classified == "skip" else f"classified {classified} (it should not build)"


bisect = load("bisect.json")
if bisect:
    b = bisect.get("bisect") or {}
    culprits = [c.get("commit") for c in b.get("culprits") or []]
    exact = culprits == [planted.get("regression")]
    broken = [s for s in b.get("steps") or [] if s.get("commit") == planted.get("broken")]
    lines += [f"**Bisection**: {b.get('commits_in_range')} commits, {b.get('rounds')} rounds; "
              f"culprit {', '.join(c[:12] for c in culprits) or 'none'} "
              f"({'exact' if exact else 'NOT the planted ' + str(planted.get('regression'))[:12]}); "
              f"the broken commit {'was ' + broken_words(broken[0]) if broken else 'was not probed'}", ""]
    for c in b.get("culprits") or []:
        for case in c.get("cases") or []:
            lines.append(f"- {case.get('case')}: ratio {case.get('ratio', 0):.3f} "
                         f"{interval(case.get('ci'))}, {percent(case.get('share') or 0)} of the change")
    if not exact:
        problems.append("the bisection did not name the planted commit alone")
    if broken and broken[0].get("classified") != "skip":
        problems.append("the broken commit was not skipped")
    lines.append("")

lines += ["## Result", ""]
lines += [f"- {p}" for p in problems] or ["Every step gave what was planted."]
print("\n".join(lines))
sys.exit(1 if problems else 0)
