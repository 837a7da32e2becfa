#!/usr/bin/env python3
"""style-pairs.py: pair each runner's clean and realistic sim trials of a run.

    t2sbench run experiments/realistic-style.yaml
    scripts/style-pairs.py runs/realistic-style/run.db

The spec runs every runner with two simulated backbones that differ only in
`style` (clean: the exact format each parser expects; realistic: the styles
real models write, reasoning blocks and 1% of answers cut at max_tokens).
For each runner, benchmark and seed this prints EX of both, the discordant
questions b (right only when clean) and c (right only when realistic), the
McNemar p-value (exact below 25 discordant questions, else chi-square with
continuity correction, as `t2sbench compare` decides), and why each question
lost under the realistic style was lost: an answer cut at max_tokens, or
another draw. It then checks every realistic trace for an answer that was
complete (finish_reason "stop") and still could not be parsed, and prints
how many there were: the number that must be 0.

Standard library only; reads run.db read-only.
"""
import collections
import json
import math
import sqlite3
import sys
import zlib


def mcnemar(b, c):
    n = b + c
    if n == 0:
        return 1.0
    if n < 25:
        k = min(b, c)
        return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)
    x = (abs(b - c) - 1) ** 2 / n
    return math.erfc(math.sqrt(x / 2))


def stored_json(raw):
    """A stored result: JSON text, or (table results) raw DEFLATE after the
    3-byte marker 00 'z' '1' (bench's encodeResult); {} for none."""
    if not raw:
        return {}
    if isinstance(raw, str):
        raw = raw.encode()
    if raw[:3] == b"\x00z1":
        raw = zlib.decompress(raw[3:], -15)
    return json.loads(raw)


def main(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    trials = {tid: (label, bench) for tid, label, bench in db.execute("select id, label, benchmark from trials")}
    res = collections.defaultdict(dict)
    runners = []
    has_results = db.execute("select count(*) from sqlite_master where type = 'table' and name = 'results'").fetchone()[0]
    query = "select trial_id, question_id, correct, result from items where status in ('done', 'failed')"
    if has_results:
        query = ("select i.trial_id, i.question_id, i.correct, coalesce(i.result, r.result) from items i "
                 "left join results r on r.trial_id = i.trial_id and r.question_id = i.question_id "
                 "where i.status in ('done', 'failed')")
    for tid, qid, correct, result in db.execute(query):
        label, bench = trials[tid]
        base = label.split(" @")[0]
        seed = label.split("seed=")[1] if "seed=" in label else "0"
        if " reason=" not in base:
            continue
        runner, model = base.split(" reason=")
        style = "realistic" if "realistic" in model else "clean"
        if runner not in runners:
            runners.append(runner)
        res[(runner, bench, style)][(seed, qid)] = (bool(correct), stored_json(result))

    print("| runner | benchmark | n | EX clean | EX realistic | delta | b | c | McNemar p | lost, a cut answer in the trace | lost, no cut |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    benches = sorted({b for (_, b, _) in res})
    for runner in runners:
        for bench in benches:
            clean, real = res.get((runner, bench, "clean")), res.get((runner, bench, "realistic"))
            if not clean or not real:
                continue
            keys = [k for k in clean if k in real]
            n = len(keys)
            ec = sum(clean[k][0] for k in keys)
            er = sum(real[k][0] for k in keys)
            lost = [k for k in keys if clean[k][0] and not real[k][0]]
            won = [k for k in keys if not clean[k][0] and real[k][0]]
            cut = sum(1 for k in lost if any(c.startswith("cut.") for c in (real[k][1].get("trace", {}).get("counters") or {})))
            print(f"| {runner} | {bench} | {n} | {100 * ec / n:.1f} | {100 * er / n:.1f} | {100 * (er - ec) / n:+.1f} | "
                  f"{len(lost)} | {len(won)} | {mcnemar(len(lost), len(won)):.2g} | {cut} | {len(lost) - cut} |")

    # Answers that were complete and still not understood: a step whose
    # sample finished normally but whose trace records a parse failure.
    bad = collections.Counter()
    for (runner, _, style), items in res.items():
        if style != "realistic":
            continue
        for _, r in items.values():
            for s in r.get("trace", {}).get("steps") or []:
                info = s.get("info") or {}
                if info.get("finish_reason") == "length":
                    continue
                text = json.dumps(info)
                if "SyntaxError" in text or "no JSON object" in text or "no SQL in response" in text:
                    bad[runner] += 1
    print()
    print(f"complete realistic answers that could not be parsed: {sum(bad.values())}" + (f" {dict(bad)}" if bad else ""))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: style-pairs.py RUN_DIR/run.db")
    main(sys.argv[1])
