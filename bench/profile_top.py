"""The top entries of a py-spy profile in collapsed-stack form (``py-spy record --format
raw``): the project's functions by the share of samples they are on the stack for, and the
functions that were running (the innermost frame) most often.

    .venv/bin/python bench/profile_top.py PROFILE.txt [--top 15]
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

OURS = re.compile(r"\((?:.*/)?(pipeline|narration|scenes|common|qkv_math)/[\w/]+\.py:\d+\)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("profile", type=Path)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    inclusive: Counter[str] = Counter()
    leaf: Counter[str] = Counter()
    total = 0
    for line in args.profile.read_text("utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = stack.split(";")
        seen = set()
        for f in frames:
            name = re.sub(r":\d+\)$", ")", f)  # one entry per function, not per line
            if OURS.search(f) and name not in seen:
                inclusive[name] += n
                seen.add(name)
        leaf[re.sub(r":\d+\)$", ")", frames[-1])] += n
    print(f"{total} samples")
    print("\nproject functions, share of samples on the stack:")
    for name, n in inclusive.most_common(args.top):
        print(f"  {100 * n / total:5.1f}%  {name}")
    print("\ninnermost frames:")
    for name, n in leaf.most_common(args.top):
        print(f"  {100 * n / total:5.1f}%  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
